package buttontest_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/button/buttontest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestClock(t *testing.T) {
	t0 := time.Unix(1000, 0)
	c := buttontest.NewClock(t0)
	var fired []string
	var at []time.Duration
	rec := func(name string) func() {
		return func() { fired = append(fired, name); at = append(at, c.Now().Sub(t0)) }
	}
	c.AfterFunc(30*time.Millisecond, rec("b"))
	c.AfterFunc(10*time.Millisecond, func() {
		rec("a")()
		c.AfterFunc(5*time.Millisecond, rec("a2")) // scheduled by a callback, due within the step
	})
	c.AfterFunc(30*time.Millisecond, rec("c")) // same deadline as b: after it
	stopped := c.AfterFunc(20*time.Millisecond, rec("never"))
	if !stopped.Stop() || stopped.Stop() {
		t.Fatal("Stop should report true once")
	}
	late := c.AfterFunc(time.Hour, rec("late"))
	c.Advance(time.Second)
	if want := []string{"a", "a2", "b", "c"}; !reflect.DeepEqual(fired, want) {
		t.Fatalf("fired %v, want %v", fired, want)
	}
	if want := []time.Duration{10e6, 15e6, 30e6, 30e6}; !reflect.DeepEqual(at, want) {
		t.Fatalf("fired at %v, want %v", at, want)
	}
	if !c.Now().Equal(t0.Add(time.Second)) || c.Pending() != 1 {
		t.Fatalf("now %v, pending %d", c.Now(), c.Pending())
	}
	if !late.Stop() {
		t.Fatal("pending timer not stoppable")
	}
}

func TestIndicator(t *testing.T) {
	i := buttontest.NewIndicator()
	if i.Light() != button.LightOff {
		t.Fatal("new indicator not off")
	}
	i.Set(button.LightBlink)
	select {
	case <-i.Changed():
	default:
		t.Fatal("Changed not signalled")
	}
	i.Set(button.LightOn)
	i.Close()
	i.Close()
	if err := i.Set(button.LightOn); !errors.Is(err, button.ErrClosed) {
		t.Fatalf("Set after Close: %v", err)
	}
	want := []button.Light{button.LightBlink, button.LightOn, button.LightOff}
	if got := i.History(); !reflect.DeepEqual(got, want) || !i.Closed() {
		t.Fatalf("history %v, closed %v", got, i.Closed())
	}
}

func TestSourceDisconnect(t *testing.T) {
	s := buttontest.NewSource(&button.Options{Clock: buttontest.NewClock(time.Unix(0, 0))})
	defer s.Close()
	s.Tap(button.Photo, false)
	s.Disconnect(button.ErrDisconnected)
	for range 2 {
		if _, err := s.Read(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Read(context.Background()); !errors.Is(err, button.ErrDisconnected) {
		t.Fatalf("Read: %v", err)
	}
}
