package keystore

// Temporary returns a Store with a fresh secret that lives only in this
// process: acbridge scan uses it before any keystore exists, so that a
// technician can try a reader first. Its aliases are not any kiosk's, and
// it has no file: Rotate refuses it.
func Temporary() (*Store, error) {
	secret, err := newSecret()
	if err != nil {
		return nil, err
	}
	defer clear(secret)
	s := &Store{}
	s.install(1, secret)
	return s, nil
}
