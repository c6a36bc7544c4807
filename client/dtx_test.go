package client_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/agentcall/acbridge/agent"
	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/audio/audiotest"
	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/client/clienttest"
	"github.com/agentcall/acbridge/protocol"
)

// silentTurn holds a push-to-talk turn from a room microphone encoding
// with enc: 0.3 s of a 1004 Hz tone, 1.5 s in which the microphone hears
// only the room's faint noise, and 2.7 s of the tone. It returns what the
// agent heard and how many packets the kiosk sent.
func silentTurn(t *testing.T, enc audio.EncoderOptions) (agent.AudioTurn, int64) {
	heard := newPackets()
	ra := startRTCAgent(t, &agent.Options{OnAudioPacket: heard.heard})
	// The room's speaker is not the kiosk's: the microphone hears only
	// the talker and the noise.
	room := audiotest.NewRoom(audio.NewEchoPath(10*time.Millisecond, 60, 50*time.Millisecond, 50*time.Millisecond, 1))
	mic, err := audio.NewMic(&audio.MicOptions{Driver: room.Mic(), Encoder: enc})
	if err != nil {
		t.Fatal(err)
	}
	rs := clienttest.StartRTCTurns(t, discoverRTC(t, ra), &client.WebRTCOptions{Mic: mic})
	ctx := context.Background()
	turn, err := rs.PTT.Press(ctx)
	if err != nil {
		t.Fatal(err)
	}
	talk := audiotest.Tone(1004, 0.25, audio.SampleRate*3/10)
	talk = append(talk, make([]int16, audio.SampleRate*3/2)...)
	talk = append(talk, audiotest.Tone(1004, 0.25, audio.SampleRate*27/10)...)
	room.Talk(talk)
	heard.wait(t, 225) // the 4.5 s talked
	if _, err := rs.PTT.Release(ctx); err != nil {
		t.Fatal(err)
	}
	for env := nextEvent(t, rs.Session); env.Event.Type != protocol.EventRunCompleted; env = nextEvent(t, rs.Session) {
	}
	turns := ra.audioTurns()
	if len(turns) != 1 || !turns[0].Committed || turns[0].Turn != turn {
		t.Fatalf("agent saw turns %+v", turns)
	}
	return turns[0], rs.Transport.Stats().PacketsSent
}

// A push-to-talk turn with a silent stretch, from the kiosk's microphone
// to the reference agent. With DTX (the default) the agent counts the
// packets the kiosk sent, none of them lost, concealed or refused by the
// decoder (DTX's tiny packets are sent, not omitted), and hears the tone
// after the silence at its frequency (the agent analyses the middle of
// the turn); the turn's payload is smaller by a kilobyte or more than the
// same turn's without DTX, all of it saved in the silence.
func TestWebRTCTurnWithSilence(t *testing.T) {
	off, _ := silentTurn(t, audio.EncoderOptions{NoDTX: true})
	at, sent := silentTurn(t, audio.EncoderOptions{})
	t.Logf("kiosk sent %d packets; agent heard %+v", sent, at)
	t.Logf("turn's payload: %d bytes in %d packets with DTX, %d in %d without", at.Bytes, at.Packets, off.Bytes, off.Packets)
	// A packet that overtook the turn's start counts as Before; one that
	// trails the commit past the agent's settling wait counts in no turn.
	if got := int64(at.Packets + at.Before); got > sent || got < sent-2 {
		t.Errorf("the agent counted %d packets of the %d the kiosk sent", got, sent)
	}
	if at.Lost != 0 || at.Concealed != 0 || at.Recovered != 0 || at.DecodeErrors != 0 {
		t.Errorf("across the silence: %d lost, %d concealed, %d recovered, %d refused; want none", at.Lost, at.Concealed, at.Recovered, at.DecodeErrors)
	}
	if math.Abs(at.Levels.Dominant-1004) > 3 {
		t.Errorf("agent heard %.1f Hz, want the tone after the silence, 1004 Hz", at.Levels.Dominant)
	}
	if at.Bytes > off.Bytes-1000 {
		t.Errorf("turn's payload: %d bytes with DTX, %d without; want 1000 fewer at least", at.Bytes, off.Bytes)
	}
}
