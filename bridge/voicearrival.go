package bridge

import (
	"sync/atomic"
	"time"

	"github.com/agentcall/acbridge/audio"
)

// heardSink is the speaker as the WebRTC transport sees it, noting when the
// agent's voice last arrived: an agent that owns voice may speak a long
// answer over RTP with no event on the data channel, and a run whose voice
// is still coming is not silent.
type heardSink struct {
	audio.Sink
	now  func() time.Time
	last atomic.Int64 // unix nanoseconds; 0: never
}

func (h *heardSink) Write(pcm []int16) error {
	h.last.Store(h.now().UnixNano())
	return h.Sink.Write(pcm)
}

// heard returns when the agent's voice last arrived (zero: never, or no
// speaker).
func (b *Bridge) heard() time.Time {
	if b.voiceIn == nil {
		return time.Time{}
	}
	if n := b.voiceIn.last.Load(); n != 0 {
		return time.Unix(0, n)
	}
	return time.Time{}
}
