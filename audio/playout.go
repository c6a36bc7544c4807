package audio

import (
	"sync/atomic"
	"time"
)

// The speaker's playout margin. Audio arriving over a network comes in
// bursts: a speaker that starts the moment the first packet is queued runs
// dry at the first late one (measured: 2–4 underruns per five replies on a
// clean link). So playback of a new stretch of audio starts only once a
// margin is queued, or once its first sample has waited that long (a
// stretch shorter than the margin still plays, late by at most the
// margin). The margin adapts like a receive jitter buffer's target delay:
// each underrun widens it by a frame, up to playoutMax; a calm
// playoutCalm without one narrows it by a frame, down to playoutMin.
const (
	playoutMin  = 2 * FrameDuration
	playoutMax  = 10 * FrameDuration
	playoutStep = FrameDuration
	playoutCalm = 10 * time.Second
	// underrunGap: audio written within this after the queue ran dry
	// belongs to the same stretch, so running dry was an underrun; a
	// longer silence is the end of one reply and the start of another.
	underrunGap = 250 * time.Millisecond
	// underrunLogEvery rate-limits the underrun log line.
	underrunLogEvery = 10 * time.Second
)

// underrunsTotal counts the underruns of every Speaker of the process,
// for the acbridge_speaker_underruns_total metric.
var underrunsTotal atomic.Uint64

// SpeakerUnderruns is the number of underruns of every Speaker this
// process opened: audio ran out in the middle of a stretch being played.
func SpeakerUnderruns() uint64 { return underrunsTotal.Load() }

// playout is a Speaker's margin state, guarded by the Speaker's mutex.
// Times are passed in so that the policy is tested without a clock.
type playout struct {
	target   time.Duration // the current margin
	limit    time.Duration // playoutMax, or less for a short queue
	waiting  time.Time     // when the queued stretch's first sample was written; zero if started or empty
	dry      time.Time     // when the queue last ran dry while playing; zero if not since
	calm     time.Time     // since when no underrun happened and the margin was not narrowed
	lastLog  time.Time
	unlogged int // underruns since the last log line
}

func newPlayout(queue time.Duration) playout {
	limit := min(playoutMax, queue/2)
	return playout{target: min(playoutMin, limit), limit: limit}
}

// written records audio queued at now into a queue that was empty
// (wasEmpty) and not playing; it reports whether this was an underrun.
func (p *playout) written(now time.Time, wasEmpty bool) (underrun bool) {
	if wasEmpty && p.waiting.IsZero() {
		p.waiting = now
	}
	if !p.dry.IsZero() {
		underrun = now.Sub(p.dry) < underrunGap
		p.dry = time.Time{}
	}
	switch {
	case underrun:
		p.target = min(p.target+playoutStep, p.limit)
		p.calm = now
	case p.calm.IsZero():
		p.calm = now
	case now.Sub(p.calm) >= playoutCalm && p.target > min(playoutMin, p.limit):
		p.target -= playoutStep
		p.calm = now
	}
	return underrun
}

// ready reports whether playback of the waiting stretch starts at now,
// with queued audio in the queue.
func (p *playout) ready(now time.Time, queued time.Duration) bool {
	if queued >= p.target || (!p.waiting.IsZero() && now.Sub(p.waiting) >= p.target) {
		p.waiting = time.Time{}
		return true
	}
	return false
}

// ranDry records that the queue ran out at now while playing.
func (p *playout) ranDry(now time.Time) { p.dry = now }

// logDue counts an underrun and reports how many to log now (0: not yet).
func (p *playout) logDue(now time.Time) int {
	p.unlogged++
	if !p.lastLog.IsZero() && now.Sub(p.lastLog) < underrunLogEvery {
		return 0
	}
	n := p.unlogged
	p.unlogged, p.lastLog = 0, now
	return n
}
