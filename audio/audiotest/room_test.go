package audiotest_test

import (
	"context"
	"testing"
	"time"

	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/audio/audiotest"
	"github.com/pion/mediadevices/pkg/driver"
	"github.com/pion/mediadevices/pkg/prop"
	"github.com/pion/mediadevices/pkg/wave"
)

// The room's microphone hears what its speaker plays, after the path's
// delay, and the echo canceller on the Mic removes it.
func TestRoomEchoIsCancelled(t *testing.T) {
	room := audiotest.NewRoom(audio.NewEchoPath(30*time.Millisecond, 6, 150*time.Millisecond, 80*time.Millisecond, 1))
	p, err := audio.NewProcessor(&audio.EchoOptions{Cancel: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	room.SetEcho(p)
	raw, err := captureRoom(t, room, nil)
	if err != nil {
		t.Fatal(err)
	}
	clean, err := captureRoom(t, room, p)
	if err != nil {
		t.Fatal(err)
	}
	rawDB := audio.LevelDB(raw, len(raw)/2, len(raw))
	cleanDB := audio.LevelDB(clean, len(clean)*3/4, len(clean))
	t.Logf("echo %.1f dBFS, after the canceller %.1f dBFS; %+v", rawDB, cleanDB, p.Stats())
	if rawDB < -40 {
		t.Errorf("the microphone hears the speaker at %.1f dBFS only", rawDB)
	}
	// The benchmark measures the canceller; this checks that the live path
	// (the room's reference, the Mic's processing) lets it work, with
	// room for a busy machine whose writer falls behind the speaker.
	if rawDB-cleanDB < 10 {
		t.Errorf("the canceller took %.1f dB off the echo", rawDB-cleanDB)
	}
}

// captureRoom plays speech into the room for 6 s while its microphone
// records, and returns the decoded recording.
func captureRoom(t *testing.T, room *audiotest.Room, p *audio.Processor) ([]int16, error) {
	mic, err := audio.NewMic(&audio.MicOptions{Driver: room.Mic(), Echo: p})
	if err != nil {
		return nil, err
	}
	defer mic.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := mic.Start(ctx); err != nil {
		return nil, err
	}
	far := audio.SpeechLike(6*time.Second, 120, 3)
	done := make(chan error, 1)
	go func() {
		for at := 0; at < len(far); at += audio.FrameSamples {
			if err := room.Write(far[at : at+audio.FrameSamples]); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	dec, err := audio.NewDecoder()
	if err != nil {
		return nil, err
	}
	var pcm []int16
	for len(pcm) < len(far) {
		pkt, err := mic.ReadPacket(ctx)
		if err != nil {
			return nil, err
		}
		s, err := dec.Decode(pkt.Data)
		if err != nil {
			return nil, err
		}
		pcm = append(pcm, s...)
	}
	if err := <-done; err != nil {
		return nil, err
	}
	return pcm, mic.Stop()
}

// A capture that has not read for a while still hears the echo of what
// the speaker played meanwhile: here the speaker's writer runs ahead of
// the wall clock (Write plays up to it when the queue is full) while the
// microphone reads nothing for over a second, as on a busy machine.
func TestRoomKeepsEchoForALateCapture(t *testing.T) {
	room := audiotest.NewRoom(audio.NewEchoPath(30*time.Millisecond, 6, 150*time.Millisecond, 80*time.Millisecond, 1))
	mic := room.Mic()
	if err := mic.Open(); err != nil {
		t.Fatal(err)
	}
	defer mic.Close()
	rec, err := mic.(driver.AudioRecorder).AudioRecord(prop.Media{})
	if err != nil {
		t.Fatal(err)
	}
	far := audio.SpeechLike(1500*time.Millisecond, 120, 3)
	for at := 0; at+audio.FrameSamples <= len(far); at += audio.FrameSamples {
		if err := room.Write(far[at : at+audio.FrameSamples]); err != nil {
			t.Fatal(err)
		}
	}
	// The first second of the capture, read only now; its first half is
	// what the old trimming lost.
	var heard []int16
	for len(heard) < audio.SampleRate {
		chunk, release, err := rec.Read()
		if err != nil {
			t.Fatal(err)
		}
		heard = append(heard, chunk.(*wave.Int16Interleaved).Data...)
		release()
	}
	db := audio.LevelDB(heard, audio.SampleRate/10, audio.SampleRate/2)
	t.Logf("the late capture heard %.1f dBFS", db)
	if db < -45 {
		t.Errorf("the late capture heard the speaker at %.1f dBFS: its echo was lost", db)
	}
}
