package audio_test

import (
	"testing"

	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/audio/audiotest"
	"github.com/agentcall/acbridge/audio/wire"
)

// The LBRR flag read from real libopus packets: a voiced signal encoded
// with in-band FEC carries copies in most packets once speech is under
// way; encoded without, none does.
func TestHasLBRR(t *testing.T) {
	pcm := audiotest.SpeechLike(2 * audio.SampleRate)
	count := func(o *audio.EncoderOptions) int {
		packets, err := audio.EncodePCM(pcm, o)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, p := range packets {
			if wire.HasLBRR(p.Data) {
				n++
			}
		}
		t.Logf("%+v: %d of %d packets carry an FEC copy", o, n, len(packets))
		return n
	}
	if n := count(nil); n < 50 {
		t.Errorf("with FEC: %d packets carry a copy, want ≥ 50 of 100", n)
	}
	if n := count(&audio.EncoderOptions{NoFEC: true}); n != 0 {
		t.Errorf("without FEC: %d packets carry a copy", n)
	}
}
