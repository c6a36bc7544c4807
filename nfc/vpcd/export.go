package vpcd

// Answer returns the response APDU the virtual card gives to cmd while
// presenting uid: the UID to GET DATA, an ISO 7816 status word otherwise.
// Other card transports (QEMU's CCID passthrough in vmtest) share it.
func Answer(cmd, uid []byte) []byte { return answer(cmd, uid, 0) }

// ATR returns the answer-to-reset a PC/SC part 3 contactless reader builds
// for a tag with uid.
func ATR(uid []byte) []byte { return atrFor(uid, Memory{}) }
