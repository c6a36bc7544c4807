package protocol

// CarrierNDEF marks an object whose objectRef is a portable reference read
// from the tag's own NDEF URI record, not a device-local alias (contract:
// "portable NDEF references are separate").
const CarrierNDEF = "ndef"

// ValidObjectRef reports whether s matches the schema's objectRef pattern:
// producers check a reference they did not derive themselves (an NDEF URI)
// with it before sending.
func ValidObjectRef(s string) bool { return validObjectRef(s) }
