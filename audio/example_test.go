package audio_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agentcall/acbridge/audio"
)

// writeSample stands in for (*webrtc.TrackLocalStaticSample).WriteSample.
func writeSample(data []byte, d time.Duration) error { return nil }

// The sending side of a WebRTC session with explicit turns: one loop
// writes packets to the track for the whole session; each push-to-talk
// turn starts and stops the microphone, and the turn is committed once
// its last packet has been written.
func ExampleMic() {
	mic, err := audio.NewMic(&audio.MicOptions{Device: audio.TestDevice})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer mic.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	done := make(chan struct{})
	go func() { // owned by the transport; ends with the session
		defer close(done)
		for {
			p, err := mic.ReadPacket(ctx)
			if err != nil {
				return // ErrClosed or the session's context
			}
			if err := writeSample(p.Data, p.Duration); err != nil {
				return
			}
		}
	}()

	// Press: send audio.turn.start, then open the microphone.
	if err := mic.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	time.Sleep(200 * time.Millisecond) // the person speaks (an example, paced by the device)
	// Release: stop the microphone first, let the last packet out, then
	// send audio.turn.commit.
	if err := mic.Stop(); err != nil {
		fmt.Println("turn failed:", err)
	}
	if err := mic.Drain(ctx); err != nil && !errors.Is(err, audio.ErrClosed) {
		fmt.Println(err)
	}
	fmt.Println("microphone running:", mic.Running())

	mic.Close()
	<-done
	// Output: microphone running: false
}

// The receiving side: the agent's RTP payloads decoded into a sink, with
// loss concealment for a gap in sequence numbers.
func ExampleDecoder() {
	packets, _ := audio.VoicePackets(nil, nil) // stands in for track.ReadRTP
	dec, _ := audio.NewDecoder()
	var sink audio.Sink = discard{}
	for i, p := range packets {
		if i == 10 { // pretend packet 10 was lost
			pcm, _ := dec.DecodeLost(audio.FrameDuration)
			sink.Write(pcm)
			continue
		}
		pcm, err := dec.Decode(p.Data)
		if err != nil {
			continue // a bad packet is dropped; the decoder state is intact
		}
		sink.Write(pcm)
	}
	sink.Close()
	fmt.Println(len(packets), "packets")
	// Output: 30 packets
}

type discard struct{}

func (discard) Write([]int16) error { return nil }
func (discard) Close() error        { return nil }
