package client

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"syscall"

	"github.com/agentcall/acbridge/health"
)

// certError is a TLS certificate the agent presented that verification
// refused for a reason no retry can change: an unknown authority or
// another host's certificate. (Expiry is not among them: a kiosk without
// a real-time clock reads "not yet valid" until NTP has synchronised.)
type certError struct {
	err error
	w   *health.Warnable
}

func (e *certError) Error() string   { return e.err.Error() + "; " + e.w.Fix }
func (e *certError) Unwrap() []error { return []error{e.err, e.w.Err("")} }

// certFix returns err with the operator's fix when it is a lasting
// certificate refusal, and err itself otherwise.
func certFix(err error) error {
	var (
		ua x509.UnknownAuthorityError
		hn x509.HostnameError
	)
	switch {
	case errors.As(err, &ua):
		return &certError{err, WarnCertAuthority}
	case errors.As(err, &hn):
		return &certError{err, WarnCertName}
	}
	return err
}

// dialTLS is the transport's TLS dial: the handshake http.Transport would
// make (same configuration, the URL's host as the server name), with a
// lasting certificate refusal given its fix. dial is read at each call, so
// that a wrapper installed on the transport afterwards (the WebSocket
// guard) still sees the raw connection.
func (p *Policy) dialTLS(tr *http.Transport) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		raw, err := tr.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		cfg := tr.TLSClientConfig.Clone()
		if cfg == nil {
			cfg = &tls.Config{}
		}
		if cfg.ServerName == "" {
			host, _, err := net.SplitHostPort(addr)
			if err != nil {
				raw.Close()
				return nil, err
			}
			cfg.ServerName = host
		}
		hctx, cancel := context.WithTimeout(ctx, p.TLSTimeout)
		defer cancel()
		c := tls.Client(raw, cfg)
		if err := c.HandshakeContext(hctx); err != nil {
			raw.Close()
			return nil, certFix(err)
		}
		return c, nil
	}
}

// Lasting returns the problem behind err when it is one no retry can fix
// — the network policy refuses the agent's address, or the agent's
// certificate is from an unknown authority or for another name — and nil
// otherwise. The error's text names the setting that fixes it.
func Lasting(err error) *health.Warnable {
	var (
		pe *policyError
		ce *certError
		np *noPathError
	)
	switch {
	case errors.As(err, &pe) && pe.w != nil:
		return pe.w
	case errors.As(err, &ce):
		return ce.w
	case errors.As(err, &np):
		return WarnNoPath
	}
	return nil
}

// maxCAFile bounds a CA bundle: a few hundred certificates at most.
const maxCAFile = 1 << 20

// LoadCAFile returns the system's roots with the certificates of the PEM
// bundle at path added: a private CA that signs an on-premises agent's
// certificate, trusted besides the public ones. A file that is missing,
// unreadable, not a regular file, holds no certificate or anything but
// certificates (a private key by mistake) is an error saying so.
func LoadCAFile(path string) (*x509.CertPool, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("%s does not exist: give the PEM file of the CA that signed the agent's certificate", path)
	case err != nil:
		return nil, fmt.Errorf("cannot open %s: %w (it must be readable by the service user)", path, unwrapPath(err))
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file: give the PEM file of the CA that signed the agent's certificate", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxCAFile+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w (it must be readable by the service user)", path, unwrapPath(err))
	}
	if len(b) > maxCAFile {
		return nil, fmt.Errorf("%s is larger than %d bytes: give only the CA's certificate", path, maxCAFile)
	}
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	n := 0
	for rest := b; ; {
		var blk *pem.Block
		blk, rest = pem.Decode(rest)
		if blk == nil {
			break
		}
		if blk.Type != "CERTIFICATE" {
			return nil, fmt.Errorf("%s holds a PEM %q block: give only the CA's certificate (never a private key)", path, clipASCII(blk.Type, 32))
		}
		cert, err := x509.ParseCertificate(blk.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%s: certificate %d cannot be parsed: %v", path, n+1, err)
		}
		pool.AddCert(cert)
		n++
	}
	if n == 0 {
		return nil, fmt.Errorf("%s holds no PEM certificate (-----BEGIN CERTIFICATE-----); convert a DER file with openssl x509 -inform der -in ca.der -out ca.pem", path)
	}
	return pool, nil
}

// unwrapPath drops the *PathError's own repetition of the path.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
