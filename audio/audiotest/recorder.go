package audiotest

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/agentcall/acbridge/audio"
)

// Recorder is an audio.Sink that keeps every sample written, for tests
// that check what the device would have played.
type Recorder struct {
	mu      sync.Mutex
	pcm     []int16
	writes  int
	closed  bool
	changed chan struct{}
}

var _ audio.Sink = (*Recorder)(nil)

// NewRecorder returns an empty Recorder.
func NewRecorder() *Recorder { return &Recorder{changed: make(chan struct{})} }

// Write appends a copy of pcm.
func (r *Recorder) Write(pcm []int16) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return audio.ErrClosed
	}
	r.pcm = append(r.pcm, pcm...)
	r.writes++
	close(r.changed)
	r.changed = make(chan struct{})
	return nil
}

// Close ends recording; the samples stay readable. Safe to call twice.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed {
		r.closed = true
		close(r.changed)
	}
	return nil
}

// Samples returns a copy of everything written so far.
func (r *Recorder) Samples() []int16 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]int16(nil), r.pcm...)
}

// Writes counts Write calls.
func (r *Recorder) Writes() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.writes
}

// Duration is the playing time of the samples at audio.SampleRate.
func (r *Recorder) Duration() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return time.Duration(len(r.pcm)) * time.Second / audio.SampleRate
}

// Wait blocks until at least d of audio has been written, the Recorder is
// closed, or ctx ends.
func (r *Recorder) Wait(ctx context.Context, d time.Duration) error {
	want := int(d * audio.SampleRate / time.Second)
	r.mu.Lock()
	defer r.mu.Unlock()
	for len(r.pcm) < want {
		if r.closed {
			return fmt.Errorf("audiotest: recorder closed after %v of %v", time.Duration(len(r.pcm))*time.Second/audio.SampleRate, d)
		}
		ch := r.changed
		r.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			r.mu.Lock()
			return fmt.Errorf("audiotest: waiting for %v of audio: %w", d, ctx.Err())
		}
		r.mu.Lock()
	}
	return nil
}
