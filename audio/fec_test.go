package audio_test

import (
	"math"
	"testing"

	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/audio/audiotest"
)

// The encoder's packets carry in-band FEC: a frame lost on the way is
// recovered from the next packet closer to what arrived intact than the
// decoder's extrapolation gets, for a good share of the lost frames of a
// voiced signal. With FEC off in the encoder, DecodeFEC falls back to the
// extrapolation for every frame, and this test fails.
func TestFECRecoversLostFrames(t *testing.T) {
	packets, err := audio.EncodePCM(audiotest.SpeechLike(4*audio.SampleRate), nil)
	if err != nil {
		t.Fatal(err)
	}
	lostFrames, better := 0, 0
	for k := 10; k+1 < len(packets); k += 7 {
		ds := make([]*audio.Decoder, 3) // intact, FEC, concealment
		for i := range ds {
			if ds[i], err = audio.NewDecoder(); err != nil {
				t.Fatal(err)
			}
			for _, p := range packets[:k] {
				ds[i].Decode(p.Data)
			}
		}
		ref, err1 := ds[0].Decode(packets[k].Data)
		fec, err2 := ds[1].DecodeFEC(packets[k+1].Data)
		plc, err3 := ds[2].DecodeLost(audio.FrameDuration)
		if err1 != nil || err2 != nil || err3 != nil {
			t.Fatal(err1, err2, err3)
		}
		var ef, ep float64
		for j := range ref {
			ef += math.Abs(float64(ref[j]) - float64(fec[j]))
			ep += math.Abs(float64(ref[j]) - float64(plc[j]))
		}
		lostFrames++
		if ef < 0.7*ep {
			better++
		}
	}
	t.Logf("FEC recovered %d of %d lost frames better than concealment", better, lostFrames)
	if better*4 < lostFrames {
		t.Fatalf("FEC recovered only %d of %d lost frames better than concealment: no in-band FEC in the packets", better, lostFrames)
	}
}
