package audiotest

import (
	"io"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/agentcall/acbridge/audio"
	"github.com/pion/mediadevices/pkg/driver"
	mdaudio "github.com/pion/mediadevices/pkg/io/audio"
	"github.com/pion/mediadevices/pkg/prop"
	"github.com/pion/mediadevices/pkg/wave"
)

// Room is a simulated kiosk's acoustics: a speaker (an audio.Sink) whose
// sound reaches a microphone (a mediadevices driver for
// audio.MicOptions.Driver) through an audio.EchoPath, over a faint
// background noise, with a near-end talker when Talk is called. Both run
// on one clock, the wall clock, at 48 kHz, as a sound card's playback and
// capture do: the speaker plays in real time from a short queue, the
// microphone delivers 10 ms chunks in real time.
type Room struct {
	path  *audio.EchoPath
	start time.Time
	frame int

	mu       sync.Mutex
	queue    []int16 // written, not yet played
	played   []int16 // the speaker's output, newest last, trimmed to the path's span
	clock    int64   // samples of the timeline resolved so far
	all      []int16 // everything written, for Samples
	talk     []int16 // near-end speech
	talkAt   int64   // clock position of talk[0]
	heard    int64   // clock position of the open capture's next chunk
	echo     *audio.Processor
	noise    *rand.Rand
	open     bool
	closed   chan struct{}
	changed  chan struct{}
	maxQueue int
}

var (
	_ audio.Sink           = (*Room)(nil)
	_ driver.Driver        = roomMic{}
	_ driver.AudioRecorder = roomMic{}
)

// NewRoom makes a room whose speaker reaches the microphone through path.
func NewRoom(path *audio.EchoPath) *Room {
	return &Room{
		path:     path,
		start:    time.Now(),
		frame:    audio.EchoFrame,
		noise:    rand.New(rand.NewPCG(7, 11)),
		changed:  make(chan struct{}),
		maxQueue: int(audio.DefaultSpeakerBuffer * audio.SampleRate / time.Second),
	}
}

// maxLag bounds the speaker's history kept for a capture that lags
// behind the clock: 10 s, beyond which its echo is lost.
const maxLag = 10 * audio.SampleRate

func (r *Room) now() int64 { return int64(time.Since(r.start) * audio.SampleRate / time.Second) }

// advance plays the speaker up to clock position to, feeding the echo
// canceller what was played (silence included). r.mu must be held.
func (r *Room) advance(to int64) {
	n := int(to - r.clock)
	if n <= 0 {
		return
	}
	out := make([]int16, n)
	k := copy(out, r.queue)
	r.queue = r.queue[k:]
	r.clock = to
	r.played = append(r.played, out...)
	// What the echo of the capture's next chunk still needs: the path's
	// span before it, and everything played since. A Write that found the
	// queue full plays up to the wall clock, which on a busy machine can
	// be well past a capture that has not read yet; trimming to the span
	// alone then lost that chunk's echo while the canceller had its
	// reference, and the canceller unlearnt the room.
	keep := r.path.Span() + 4*r.frame
	if r.open {
		keep += int(min(max(r.clock-r.heard, 0), maxLag))
	}
	if len(r.played) > 2*keep {
		r.played = append(r.played[:0], r.played[len(r.played)-keep:]...)
	}
	r.echo.Far(out)
	if k > 0 {
		close(r.changed)
		r.changed = make(chan struct{})
	}
}

// Write queues pcm for the speaker, blocking while more than the
// Speaker's default buffer is queued, as a sound card would.
func (r *Room) Write(pcm []int16) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.all = append(r.all, pcm...)
	r.queue = append(r.queue, pcm...)
	for len(r.queue) > r.maxQueue {
		r.advance(r.now())
		changed := r.changed
		r.mu.Unlock()
		select {
		case <-changed:
		case <-time.After(5 * time.Millisecond):
		}
		r.mu.Lock()
	}
	return nil
}

// Close does nothing: the room outlives its users.
func (r *Room) Close() error { return nil }

// Samples returns a copy of everything written to the speaker.
func (r *Room) Samples() []int16 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]int16(nil), r.all...)
}

// SetEcho makes p the echo canceller that receives what the speaker plays.
func (r *Room) SetEcho(p *audio.Processor) {
	r.mu.Lock()
	r.echo = p
	r.mu.Unlock()
}

// Talk has the near-end talker say pcm into the microphone from now on,
// in real time: what no capture hears is gone, as in a room.
func (r *Room) Talk(pcm []int16) {
	r.mu.Lock()
	r.talk = append([]int16(nil), pcm...)
	r.talkAt = r.now()
	r.mu.Unlock()
}

// ID implements driver.Driver.
func (r *Room) ID() string { return "acbridge-room" }

// Info implements driver.Driver.
func (r *Room) Info() driver.Info {
	return driver.Info{Label: "AcbridgeRoom", Name: "simulated room microphone", DeviceType: driver.Microphone}
}

// Status implements driver.Driver.
func (r *Room) Status() driver.State {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.open {
		return driver.StateOpened
	}
	return driver.StateClosed
}

// Open opens the microphone (driver.Driver).
func (r *Room) Open() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.open = true
	r.closed = make(chan struct{})
	return nil
}

// closeDriver ends a capture: the driver's Close, distinct from the Sink's.
func (r *Room) closeDriver() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.open {
		r.open = false
		close(r.closed)
	}
}

// Properties implements driver.Driver: 48 kHz mono in 10 ms chunks.
func (r *Room) Properties() []prop.Media {
	return []prop.Media{{Audio: prop.Audio{SampleRate: audio.SampleRate, ChannelCount: 1, Latency: 10 * time.Millisecond}}}
}

// AudioRecord implements driver.AudioRecorder: the microphone hears the
// echo of what the speaker played, the talker and the noise.
func (r *Room) AudioRecord(prop.Media) (mdaudio.Reader, error) {
	r.mu.Lock()
	closed := r.closed
	next := r.now()
	r.heard = next
	r.mu.Unlock()
	return mdaudio.ReaderFunc(func() (wave.Audio, func(), error) {
		end := next + int64(r.frame)
		select {
		case <-closed:
			return nil, func() {}, io.EOF
		case <-time.After(time.Duration(end-r.now()) * time.Second / audio.SampleRate):
		}
		chunk := wave.NewInt16Interleaved(wave.ChunkInfo{Len: r.frame, Channels: 1, SamplingRate: audio.SampleRate})
		r.mu.Lock()
		defer r.mu.Unlock()
		r.advance(end)
		for i := range chunk.Data {
			// The speaker may have played past end (a Write advanced the
			// clock): the sample played at next+i is counted back from
			// the clock.
			at := len(r.played) - int(r.clock-next) + i + 1
			v := r.path.At(r.played[:max(at, 0)]) + float64(r.noise.IntN(7)-3)
			if j := next + int64(i) - r.talkAt; j >= 0 && j < int64(len(r.talk)) {
				v += float64(r.talk[j])
			}
			chunk.Data[i] = clamp(v)
		}
		next, r.heard = end, end
		return chunk, func() {}, nil
	}), nil
}

func clamp(v float64) int16 {
	switch {
	case v > 32767:
		return 32767
	case v < -32768:
		return -32768
	}
	return int16(v)
}

// Mic returns the room's microphone as a driver for audio.MicOptions;
// closing it ends a capture, not the room.
func (r *Room) Mic() driver.Driver { return roomMic{r} }

// roomMic separates the driver's Close from the Sink's.
type roomMic struct{ *Room }

func (m roomMic) Close() error { m.closeDriver(); return nil }
