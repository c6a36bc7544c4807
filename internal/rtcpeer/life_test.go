package rtcpeer

import (
	"errors"
	"sync/atomic"
	"testing"
)

// The first End wins, Ended closes with it, Stop waits for every goroutine
// Go started and refuses new ones.
func TestLife(t *testing.T) {
	l := NewLife()
	select {
	case <-l.Ended():
		t.Fatal("ended before End")
	default:
	}
	first, second := errors.New("first"), errors.New("second")
	if !l.End(first) || l.End(second) {
		t.Fatal("End did not report the first call alone")
	}
	<-l.Ended()
	if l.Err() != first {
		t.Fatalf("Err %v", l.Err())
	}
	var ran atomic.Int32
	release := make(chan struct{})
	if !l.Go(func() { <-release; ran.Add(1) }) {
		t.Fatal("Go refused before Stop")
	}
	stopped := make(chan struct{})
	go func() { l.Stop(); close(stopped) }()
	select {
	case <-stopped:
		t.Fatal("Stop returned while a goroutine ran")
	default:
	}
	close(release)
	<-stopped
	if ran.Load() != 1 {
		t.Fatal("the goroutine did not run")
	}
	if l.Go(func() { ran.Add(1) }) {
		t.Fatal("Go started a goroutine after Stop")
	}
}
