package wire

import "time"

// MaxConcealedPackets bounds loss concealment to what libopus can
// extrapolate in one call (120 ms); a longer gap is left silent.
const MaxConcealedPackets = 6

// LossDecoder conceals a gap of audio (libopus's packet loss concealment).
type LossDecoder interface {
	DecodeLost(d time.Duration) ([]int16, error)
}

// FECDecoder recovers the 20 ms frame lost just before payload from the
// in-band FEC copy payload carries.
type FECDecoder interface {
	DecodeFEC(payload []byte) ([]int16, error)
}

// Conceal fills a gap of lost packets before next: the last of them from
// next's in-band FEC copy when next carries one (HasLBRR) and dec is a
// FECDecoder, the others by extrapolation. Each piece of audio goes to
// emit, in order. recovered counts the frames decoded from a copy,
// concealed those extrapolated: libopus's FEC call on a packet without a
// copy extrapolates, so only a copy that is there counts as recovered.
func Conceal(dec LossDecoder, lost int, next []byte, emit func([]int16)) (recovered, concealed int) {
	fd, fec := dec.(FECDecoder)
	fec = fec && HasLBRR(next)
	n := lost
	if fec {
		n--
	}
	if n > 0 {
		if pcm, err := dec.DecodeLost(time.Duration(n) * FrameDuration); err == nil {
			concealed = n
			emit(pcm)
		}
	}
	if fec {
		if pcm, err := fd.DecodeFEC(next); err == nil {
			recovered = 1
			emit(pcm)
		}
	}
	return recovered, concealed
}
