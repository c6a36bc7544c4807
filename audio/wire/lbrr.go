package wire

// HasLBRR reports whether an Opus packet of one mono frame carries SILK's
// in-band FEC copy of the previous frame (RFC 6716 §4.2.4, the LBRR flag),
// so that a receiver that lost the previous packet can tell a frame
// recovered through FEC from one libopus only extrapolated (its FEC call
// falls back to extrapolation silently). Packets of CELT only, stereo or
// several frames are reported false: the profile's peers send mono
// single-frame packets, and no library of the field exposes the flag.
func HasLBRR(p []byte) bool {
	if len(p) < 2 {
		return false
	}
	toc := p[0]
	config := toc >> 3
	if config >= 16 || toc&0x07 != 0 {
		return false // CELT only; or stereo, or more than one frame
	}
	// SILK frames in the Opus frame: 10 and 20 ms have one, 40 ms two,
	// 60 ms three (hybrid configurations are 10 or 20 ms).
	n := 1
	if config < 12 && config&3 >= 2 {
		n = int(config & 3)
	}
	// The header is n VAD flags and then the LBRR flag, each coded with
	// probability ½: the range coder then emits them as the first payload
	// byte's bits, most significant first.
	return p[1]&(0x80>>n) != 0
}
