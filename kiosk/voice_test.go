package kiosk_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/agent"
	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/audio/audiotest"
	"github.com/agentcall/acbridge/bridge"
	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/kiosk"
)

// TestSpokenTalkTurn is the spoken part of a visitor's session with the
// physical buttons only, in speech mode: the reference agent owns voice
// over WebRTC, the bridge has the test microphone; a long CANCEL turns
// speech on, TALK held is a push-to-talk turn the agent hears, and what the
// TTS command was given is checked (the hint, listening, spoken, the
// agent's answer).
func TestSpokenTalkTurn(t *testing.T) {
	heard := make(chan agent.AudioTurn, 1)
	packets := make(chan struct{}, 256)
	var speaker *audiotest.Recorder
	r, said, phys := spokenRig(t, &kiosk.Options{Language: "es", Languages: []string{"en", "es"}},
		func(ao *agent.Options, bo *bridge.Options) {
			ao.Transport = "webrtc"
			ao.OnAudioTurn = func(a agent.AudioTurn) { heard <- a }
			ao.OnAudioPacket = func(turn int64) {
				if turn != 0 {
					select {
					case packets <- struct{}{}:
					default:
					}
				}
			}
			mic, err := audio.NewMic(&audio.MicOptions{Device: audio.TestDevice})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { mic.Close() })
			speaker = audiotest.NewRecorder()
			bo.Devices.Mic, bo.Devices.Speaker = bridge.OpenedMic{Mic: mic}, speaker
		})
	r.waitOut("[hold TALK", 1)

	phys.Tap(button.Cancel, true) // long: speech mode; nothing runs to cancel
	waitSaid(t, said, "es|La lectura en voz alta está activada.")
	phys.SetInput(button.Talk, 1, true)
	r.waitOut("listening", 1)
	waitSaid(t, said, "Escuchando")
	deadline := time.After(10 * time.Second)
	for n := 0; n < 50; n++ { // about a second of speech: the test microphone keeps real time
		select {
		case <-packets:
		case <-deadline:
			t.Fatalf("the agent heard %d packets in 10 s", n)
		}
	}
	phys.SetInput(button.Talk, 1, false)
	select {
	case a := <-heard:
		if a.Packets < 45 {
			t.Errorf("the agent heard %d packets for ~1 s of speech", a.Packets)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the agent reported no audio turn")
	}
	// The agent answers in its own voice, on the speaker; the screen's
	// reader does not say its words a second time.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := speaker.Wait(ctx, 500*time.Millisecond); err != nil {
		t.Fatalf("the agent's voice did not reach the speaker: %v (got %v)", err, speaker.Duration())
	}
	r.waitOut("agent: Heard", 1)
	got := waitSaid(t, said, "Mensaje de voz enviado")
	if !strings.Contains(got, "Mantenga pulsado Hablar mientras habla.") {
		t.Errorf("how to talk not said:\n%s", got)
	}
	if strings.Contains(got, "Asistente:") {
		t.Errorf("the agent's voiced answer was said again:\n%s", got)
	}
	if internals.MatchString(got) {
		t.Errorf("internals said:\n%s", got)
	}
	t.Logf("said:\n%s", got)
}
