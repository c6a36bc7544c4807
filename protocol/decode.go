package protocol

import "encoding/json"

// bounded is a wire type with bounds its schema does not state.
type bounded[T any] interface {
	*T
	checkBounds() error
}

// decodeBounded fills a T from a schema-valid instance (decodeExact) and
// applies T's own bounds; what names the document in the error, code is
// the rejection's.
func decodeBounded[T any, P bounded[T]](inst any, code, what string) (*T, error) {
	v := new(T)
	if err := decodeExact(inst, v); err != nil {
		return nil, newError(code, "%s does not fit its Go type", what)
	}
	if err := P(v).checkBounds(); err != nil {
		return nil, err
	}
	return v, nil
}

// marshalChecked encodes v and parses the bytes back with parse (schema and
// frame bound), so that nothing malformed ever leaves this process.
func marshalChecked[T any](v *T, parse func([]byte) (*T, error), code, what string) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, newError(code, "%s does not encode", what)
	}
	if _, err := parse(b); err != nil {
		return nil, err
	}
	return b, nil
}
