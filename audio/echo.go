package audio

import (
	"fmt"
	"log/slog"
	"math"
	"sync"
	"time"
)

// EchoFrame is the Processor's frame: 10 ms at 48 kHz, the framing both
// libspeexdsp and WebRTC's audio processing are tuned for.
const EchoFrame = SampleRate / 100

// DefaultEchoTail is the span of the adaptive filter after the measured
// delay: a small room's reverberation that matters for echo (the first
// 60-80 ms) plus room for the delay to drift before a realignment.
const DefaultEchoTail = 120 * time.Millisecond

// DefaultMaxEchoDelay bounds the speaker-to-microphone delay the
// Processor looks for: a speaker's queue, the two devices' periods and
// the air between them.
const DefaultMaxEchoDelay = 400 * time.Millisecond

// echoMargin is how much earlier than the measured delay the adaptive
// filter starts, so that a delay that shrinks a little stays inside it.
const echoMargin = 20 * time.Millisecond

// echoRoom is the part of the filter kept for the echo's reverberation
// after the direct sound.
const echoRoom = 60 * time.Millisecond

// EchoOptions configure a Processor. The zero value only passes audio
// through.
type EchoOptions struct {
	// Cancel removes the echo of the reference (Far) from the microphone.
	Cancel bool
	// NoiseSuppress turns libspeexdsp's noise suppression on.
	NoiseSuppress bool
	// GainDB is a fixed gain applied last, -20..+30 dB (a quiet
	// microphone); samples saturate instead of wrapping.
	GainDB float64
	// Tail is the adaptive filter's span (a multiple of 10 ms up to
	// 500 ms); 0 means DefaultEchoTail.
	Tail time.Duration
	// MaxDelay bounds the delay search (up to 1 s); 0 means
	// DefaultMaxEchoDelay.
	MaxDelay time.Duration
	Logger   *slog.Logger // nil: discard
}

// EchoStats describe a Processor's state.
type EchoStats struct {
	Frames    int           // microphone frames processed
	Delay     time.Duration // the measured speaker-to-microphone delay, 0 until measured
	Measured  bool          // a delay has been measured
	Realigned int           // times the alignment moved (each restarts adaptation)
	FarLate   int           // frames whose reference had not arrived in time (zeros used)
	Reference int64         // reference samples received through Far
}

// Processor cleans the microphone's audio for an open-microphone
// conversation: acoustic echo cancellation with the agent's voice as it
// went to the speaker as the reference, residual echo and noise
// suppression (libspeexdsp), and a fixed gain. The reference comes from
// the speaker's device thread through Far, the microphone's frames go
// through Process; the two run concurrently.
//
// The delay between the two streams is unknown (device queues, the
// distance) and drifts (two clocks), so the Processor measures it by
// cross-correlating the microphone with the reference (delay.go) and
// feeds the canceller the reference shifted by that delay; it measures
// again every half second and moves the alignment when the echo leaves
// the filter's span.
type Processor struct {
	log    *slog.Logger
	cancel bool
	gain   float64
	tail   int // samples
	maxLag int // samples

	mu   sync.Mutex // guards hist and farN, written by Far
	hist []int16    // ring of the newest reference samples
	farN int64      // reference samples ever received

	// Only Process's caller touches the rest.
	synced bool
	base   int64 // reference index of microphone sample 0 ("now")
	nearN  int64 // microphone samples processed since Restart
	lag    int   // current alignment: reference lag in samples
	aec    *speexEcho
	pre    *speexPre
	est    *delayEstimator
	ref    []int16
	out    []int16
	stats  EchoStats
	closed bool
}

// NewProcessor builds a Processor; Close releases it.
func NewProcessor(opts *EchoOptions) (*Processor, error) {
	if opts == nil {
		opts = &EchoOptions{}
	}
	tail, maxDelay := opts.Tail, opts.MaxDelay
	if tail == 0 {
		tail = DefaultEchoTail
	}
	if maxDelay == 0 {
		maxDelay = DefaultMaxEchoDelay
	}
	switch {
	case tail < 10*time.Millisecond || tail > 500*time.Millisecond || tail%(10*time.Millisecond) != 0:
		return nil, fmt.Errorf("%w: echo tail %v is not a multiple of 10ms between 10ms and 500ms", ErrBadConfig, tail)
	case maxDelay < 0 || maxDelay > time.Second:
		return nil, fmt.Errorf("%w: maximum echo delay %v outside 0..1s", ErrBadConfig, maxDelay)
	case opts.GainDB < -20 || opts.GainDB > 30 || math.IsNaN(opts.GainDB):
		return nil, fmt.Errorf("%w: microphone gain %v dB outside -20..30", ErrBadConfig, opts.GainDB)
	}
	p := &Processor{
		log:    opts.Logger,
		cancel: opts.Cancel,
		gain:   math.Pow(10, opts.GainDB/20),
		tail:   samplesOf(tail),
		maxLag: samplesOf(maxDelay),
		ref:    make([]int16, EchoFrame),
		out:    make([]int16, EchoFrame),
	}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	var err error
	if p.cancel {
		if p.aec, err = newSpeexEcho(EchoFrame, p.tail, SampleRate); err != nil {
			return nil, err
		}
		p.est = newDelayEstimator(p.maxLag)
		// The history covers an estimate's span and the longest lag.
		p.hist = make([]int16, p.est.span()+p.maxLag+4*EchoFrame)
	}
	if p.cancel || opts.NoiseSuppress {
		if p.pre, err = newSpeexPre(EchoFrame, SampleRate, p.aec, opts.NoiseSuppress); err != nil {
			p.aec.destroy()
			return nil, err
		}
	}
	return p, nil
}

func samplesOf(d time.Duration) int { return int(d * SampleRate / time.Second) }

// Cancels reports whether the Processor cancels echo.
func (p *Processor) Cancels() bool { return p != nil && p.cancel }

// Far takes the reference: the samples just handed to the speaker, in
// order and without gaps (silence included). It never blocks for long,
// so a device thread may call it.
func (p *Processor) Far(pcm []int16) {
	if p == nil || !p.cancel {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	n := int64(len(p.hist))
	for len(pcm) > 0 {
		at := int(p.farN % n)
		k := copy(p.hist[at:], pcm)
		pcm = pcm[k:]
		p.farN += int64(k)
	}
}

// Restart marks a new microphone run: the microphone's sample count
// starts again, so "now" is taken again from the reference. What the
// canceller learnt about the room stays.
func (p *Processor) Restart() {
	p.synced = false
	p.nearN = 0
}

// readFar copies the reference samples [from, from+len(dst)) into dst,
// with zeros for what has not arrived or was overwritten; it reports
// whether all of it had arrived.
func (p *Processor) readFar(dst []int16, from int64) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := int64(len(p.hist))
	ok := true
	for i := range dst {
		j := from + int64(i)
		if j < 0 || j >= p.farN || j < p.farN-n {
			dst[i] = 0
			ok = ok && j < p.farN
			continue
		}
		dst[i] = p.hist[j%n]
	}
	return ok
}

// Process cleans one EchoFrame of microphone samples in place.
func (p *Processor) Process(frame []int16) error {
	if len(frame) != EchoFrame {
		return fmt.Errorf("%w: echo frame of %d samples, want %d", ErrBadPCM, len(frame), EchoFrame)
	}
	if p.closed {
		return ErrClosed
	}
	if p.cancel {
		if !p.synced {
			// The newest reference is what the speaker got last: the
			// echo in this frame can only be older.
			p.mu.Lock()
			p.base = p.farN - EchoFrame - p.nearN
			p.mu.Unlock()
			p.synced = true
		}
		now := p.base + p.nearN
		if !p.readFar(p.ref, now-int64(p.lag)) {
			p.stats.FarLate++
		}
		p.aec.cancel(frame, p.ref, p.out)
		if p.est.add(frame) {
			end := now + EchoFrame
			p.readFar(p.est.far, end-int64(p.est.span()))
			if d, ok := p.est.estimate(p.est.far); ok {
				p.align(d)
			}
		}
		copy(frame, p.out)
	}
	if p.pre != nil {
		p.pre.run(frame)
	}
	if p.gain != 1 {
		for i, s := range frame {
			frame[i] = saturate(float64(s) * p.gain)
		}
	}
	p.nearN += EchoFrame
	p.stats.Frames++
	return nil
}

// align moves the reference when the measured delay d (samples after
// "now") has left the part of the filter where the echo belongs: from
// its start to echoRoom before its end, the room the reverberation
// needs. The first measurement also moves a filter that starts well
// before the echo, which would waste its span on silence. A move restarts the adaptation, so delays that wander inside
// that part (drift, an estimate that picked a strong reflection) are
// left to the filter.
func (p *Processor) align(d int) {
	p.stats.Delay = time.Duration(d) * time.Second / SampleRate
	first := !p.stats.Measured
	p.stats.Measured = true
	if d >= p.lag && d <= p.lag+p.tail-samplesOf(echoRoom) && (!first || d-p.lag <= 2*samplesOf(echoMargin)) {
		return
	}
	p.lag = max(d-samplesOf(echoMargin), 0)
	p.aec.reset()
	p.stats.Realigned++
	p.log.Debug("audio: echo alignment moved", "delay", p.stats.Delay, "frame", p.stats.Frames)
}

// Stats returns the Processor's counters and measured delay; only
// Process's caller may call it.
func (p *Processor) Stats() EchoStats {
	st := p.stats
	p.mu.Lock()
	st.Reference = p.farN
	p.mu.Unlock()
	return st
}

// Close releases libspeexdsp's state; Process then returns ErrClosed.
// Only Process's caller may call it, once Process has returned.
func (p *Processor) Close() error {
	if p.closed {
		return nil
	}
	p.closed = true
	p.pre.destroy()
	p.aec.destroy()
	return nil
}

func saturate(v float64) int16 {
	switch {
	case v > math.MaxInt16:
		return math.MaxInt16
	case v < math.MinInt16:
		return math.MinInt16
	}
	return int16(math.Round(v))
}
