package client

import (
	"math"
	"time"
)

// Quality is the voice path's state, for a fleet to watch: what the
// agent's voice lost on the way and what the kiosk could not get back,
// the jitter of its arrival, the round trip from RTCP receiver reports,
// and the E-model's estimate of a listener's opinion of the call.
type Quality struct {
	// Loss is the fraction of the agent's frames lost on the way and not
	// resent in time after a NACK; Residual the fraction of those also not
	// recovered through FEC.
	Loss, Residual float64
	Jitter         time.Duration // interarrival jitter of the agent's RTP (RFC 3550)
	RTT            time.Duration // 0 until the agent's first receiver report
	// MOS is EModelMOS of half the round trip plus jitter and a 20 ms
	// frame, and Residual.
	MOS float64
}

// Quality returns the voice path's state so far.
func (t *WebRTCTransport) Quality() Quality {
	st := t.Stats()
	var q Quality
	if total := st.PacketsReceived + st.PacketsLost; total > 0 {
		q.Loss = float64(st.PacketsLost) / float64(total)
		q.Residual = float64(st.PacketsLost-st.Recovered) / float64(total)
	}
	q.Jitter, q.RTT = t.timing.Voice(t.pc)
	q.MOS = EModelMOS(q.RTT/2+q.Jitter+20*time.Millisecond, q.Residual)
	return q
}

// EModelMOS is the ITU-T G.107 E-model's estimate of a call's mean
// opinion score (1..4.5) from its one-way mouth-to-ear delay and the
// fraction of frames lost after recovery, in the model's common
// simplified form (delay impairment Id, effective equipment impairment
// Ie-eff from random loss, every other term at its default). Ie 0 and
// Bpl 20 for Opus with concealment are this package's assumptions, not
// published values. Written here because no Go library of the field
// computes it; the formula is a few lines.
func EModelMOS(oneWay time.Duration, loss float64) float64 {
	const (
		r0  = 93.2 // the default signal-to-noise and simultaneous impairments
		ie  = 0.0
		bpl = 20.0
	)
	d := float64(oneWay) / float64(time.Millisecond)
	id := 0.024 * d
	if d > 177.3 {
		id += 0.11 * (d - 177.3)
	}
	ppl := 100 * math.Max(0, math.Min(loss, 1))
	ieEff := ie + (95-ie)*ppl/(ppl+bpl)
	r := r0 - id - ieEff
	switch {
	case r <= 0:
		return 1
	case r >= 100:
		return 4.5
	}
	return 1 + 0.035*r + r*(r-60)*(100-r)*7e-6
}

// SetupTime is how long the dial took from creating the offer to the
// data channel's opening (the card already fetched).
func (t *WebRTCTransport) SetupTime() time.Duration { return t.setup }
