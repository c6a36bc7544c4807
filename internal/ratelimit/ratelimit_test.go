package ratelimit

import (
	"testing"
	"time"
)

func TestBucket(t *testing.T) {
	now := time.Unix(1000, 0)
	b := New(3, 2)
	for i := 0; i < 3; i++ {
		if !b.Take(now) {
			t.Fatalf("token %d of the burst refused", i+1)
		}
	}
	if b.Take(now) {
		t.Fatal("a token past the burst")
	}
	now = now.Add(750 * time.Millisecond) // 1.5 tokens
	if !b.Take(now) || b.Take(now) {
		t.Fatal("refill at 2/s: want exactly one token after 0.75 s")
	}
	now = now.Add(time.Hour)
	n := 0
	for b.Take(now) {
		n++
	}
	if n != 3 {
		t.Fatalf("%d tokens after an hour, want the burst of 3", n)
	}
}

func TestBucketTakeN(t *testing.T) {
	now := time.Unix(1000, 0)
	b := New(100, 10)
	if !b.TakeN(now, 60) || b.TakeN(now, 60) {
		t.Fatal("want 60 of 100, then 60 refused whole")
	}
	if !b.TakeN(now, 40) {
		t.Fatal("the refused take took tokens")
	}
	if b.TakeN(now.Add(time.Second), 11) || !b.TakeN(now.Add(time.Second), 10) {
		t.Fatal("refill at 10/s: want exactly 10 after 1 s")
	}
}
