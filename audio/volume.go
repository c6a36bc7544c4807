package audio

import (
	"fmt"
	"math"
	"sync"
)

// MuteDB is the ducking level at or below which a ducked speaker is
// silent.
const MuteDB = -60.0

// Volume is the speaker's level: a fixed volume and ducking while the
// microphone is open for push-to-talk. A Speaker applies it as it hands
// audio to the device, so ducking takes effect within one device period
// instead of after the audio already queued.
//
// Audio that arrives while ducked plays at the ducked level (silent when
// muted) and is not held back for later: pressing TALK interrupts the
// agent, its answer to the new turn follows, and replaying older speech
// after the release would talk over that answer (its text stays on the
// display). Holding it would also need an unbounded queue behind a
// blocked RTP reader.
type Volume struct {
	mu     sync.Mutex
	level  float64 // linear gain of the volume
	duck   float64 // linear gain while ducked, 0 for mute
	ducked bool
	last   float64 // gain at the end of the last apply, for ramps
}

// NewVolume makes a Volume of percent (1..100, a linear amplitude scale)
// that ducks by duckDB (negative, MuteDB or below mutes; 0 does not
// duck).
func NewVolume(percent int, duckDB float64) (*Volume, error) {
	if percent < 1 || percent > 100 {
		return nil, fmt.Errorf("%w: speaker volume %d outside 1..100", ErrBadConfig, percent)
	}
	if duckDB > 0 || math.IsNaN(duckDB) {
		return nil, fmt.Errorf("%w: ducking %v dB must be 0 or below", ErrBadConfig, duckDB)
	}
	v := &Volume{level: float64(percent) / 100, duck: math.Pow(10, duckDB/20)}
	if duckDB <= MuteDB {
		v.duck = 0
	}
	v.last = v.level
	return v, nil
}

// Duck lowers (on) or restores (off) the speaker.
func (v *Volume) Duck(on bool) {
	if v == nil {
		return
	}
	v.mu.Lock()
	v.ducked = on
	v.mu.Unlock()
}

// Ducked reports whether the speaker is ducked.
func (v *Volume) Ducked() bool {
	if v == nil {
		return false
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.ducked
}

// apply scales pcm in place, ramping from the previous gain over the
// buffer so that ducking does not click.
func (v *Volume) apply(pcm []int16) {
	if v == nil || len(pcm) == 0 {
		return
	}
	v.mu.Lock()
	want := v.level
	if v.ducked {
		want *= v.duck
	}
	from := v.last
	v.last = want
	v.mu.Unlock()
	if from == 1 && want == 1 {
		return
	}
	step := (want - from) / float64(len(pcm))
	for i, s := range pcm {
		pcm[i] = saturate(float64(s) * (from + step*float64(i+1)))
	}
}
