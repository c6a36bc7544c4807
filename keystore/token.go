package keystore

import (
	"bytes"
	"fmt"
)

// MaxTokenLen bounds a bearer token; real ones are far shorter.
const MaxTokenLen = 4 << 10

// LoadToken reads the agent's bearer token from a file that only its owner
// may access (group/world access is ErrInsecureMode, checked before
// reading). One trailing newline ("\n" or "\r\n") is removed, since editors
// add one; the rest must be 1 to MaxTokenLen bytes of visible ASCII
// (0x21-0x7e), which covers RFC 6750 tokens and keeps the value safe to
// put in an Authorization header. Content errors wrap ErrMalformed and
// never contain the token or any part of it.
func LoadToken(path string) (string, error) {
	if path == "" {
		return "", fmt.Errorf("%w: empty token file path", ErrInvalidInput)
	}
	data, err := readPrivate(path, MaxTokenLen+2)
	if err != nil {
		return "", err
	}
	defer clear(data)
	tok := data
	if bytes.HasSuffix(tok, []byte("\r\n")) {
		tok = tok[:len(tok)-2]
	} else if bytes.HasSuffix(tok, []byte("\n")) {
		tok = tok[:len(tok)-1]
	}
	switch {
	case len(tok) == 0:
		return "", fmt.Errorf("%w: token file %s is empty", ErrMalformed, path)
	case len(tok) > MaxTokenLen:
		return "", fmt.Errorf("%w: token in %s is longer than %d bytes", ErrMalformed, path, MaxTokenLen)
	}
	for i, c := range tok {
		if c < 0x21 || c > 0x7e {
			return "", fmt.Errorf("%w: token in %s has a byte outside visible ASCII at offset %d (spaces, control characters and extra newlines are not allowed)", ErrMalformed, path, i)
		}
	}
	return string(tok), nil
}
