package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentcall/acbridge/agent"
	"github.com/agentcall/acbridge/bridge/bridgetest"
)

// lateMic is an ALSA plugin microphone for the daemon's HOME: a 44.1 kHz-only
// plug device over a file PCM reading a tone, no sound card needed.
const lateMic = `pcm.acbridge_usb_file {
	type file
	slave.pcm "null"
	file "/dev/null"
	infile "%[1]s/usb.raw"
	format "raw"
}
pcm.acbridge_usb {
	type plug
	slave { pcm "acbridge_usb_file"; rate 44100; format S16_LE; channels 1 }
	hint { show on description "acbridge test USB microphone" }
}
`

// `acbridge run` with a microphone that is plugged in only after the
// first voice session: the next session finds it without a restart and it
// is captured at its own 44.1 kHz; unplugged, a press says so, and plugged
// back, the next press uses it again.
func TestRunDaemonMicrophonePluggedInLater(t *testing.T) {
	dir := t.TempDir()
	var tone []byte
	for i := range 44100 * 5 {
		tone = binary.LittleEndian.AppendUint16(tone, uint16(int16(8000*math.Sin(2*math.Pi*1000*float64(i)/44100))))
	}
	if err := os.WriteFile(filepath.Join(dir, "usb.raw"), tone, 0o600); err != nil {
		t.Fatal(err)
	}
	changes := 0
	plug := func(in bool) {
		t.Helper()
		conf := ""
		if in {
			conf = fmt.Sprintf(lateMic, dir)
		}
		rc := filepath.Join(dir, ".asoundrc")
		if err := os.WriteFile(rc, []byte(conf), 0o600); err != nil {
			t.Fatal(err)
		}
		// alsa-lib rereads a configuration file whose time changed.
		changes++
		at := time.Now().Add(time.Duration(changes) * 10 * time.Second)
		if err := os.Chtimes(rc, at, at); err != nil {
			t.Fatal(err)
		}
	}
	plug(false)

	heard := newAgentPackets()
	ag := &procAgent{t: t, log: &bridgetest.Transcript{},
		opts: &agent.Options{Transport: "webrtc", OnAudioPacket: heard.packet, OnAudioTurn: heard.turn}}
	ag.start()
	defer ag.stop()
	d := newDaemon(t, dir, ag.addr, `
[audio]
microphone = "acbridge_usb"
[[button]]
control = "talk"
source = "evdev"
device = "`+filepath.Join(dir, "keys")+`"
key = "KEY_T"
`)
	d.cmd.Env = append(d.cmd.Env, "HOME="+dir, "PULSE_SERVER=/nonexistent")
	d.start()
	d.wait(d.out, "no microphone is configured", 1)

	// Plugged in; the next session (the agent restarted) finds it.
	plug(true)
	ag.stop()
	d.wait(d.out, "[not connected", 1)
	ag.start()
	d.wait(d.out, "[hold TALK to speak to the agent]", 1)
	talk := func(n int) {
		t.Helper()
		d.key(keyT, true)
		d.wait(d.out, "[listening: speak, then let go of TALK]", n)
		_, before := heard.count()
		heard.wait(t, "20 more in the turn (~1 s)", func(_, inside int) bool { return inside >= before+20 })
		d.key(keyT, false)
		d.wait(d.out, "[spoken]", n)
		// The agent's answer ends its run; a press before it is refused.
		d.wait(d.out, "agent: Heard", n)
		d.wait(d.err, "agent answered", n)
	}
	talk(1)
	d.wait(d.err, "resampling to 48 kHz", 1)
	d.wait(d.err, "rate=44100", 1)
	_, inside := heard.count()
	t.Logf("packets of the first turn from the late microphone: %d", inside)
	if inside < 20 {
		t.Fatalf("a turn of ~1 s from the late microphone delivered %d packets", inside)
	}

	// Unplugged: the press says so; plugged back: the next press works.
	plug(false)
	d.key(keyT, true)
	d.wait(d.out, "is not there now (unplugged?)", 1)
	d.key(keyT, false)
	plug(true)
	// A release and a press inside the press's debounce cancel out, and the
	// daemon shows no event when the release gets through: its time passes.
	time.Sleep(300 * time.Millisecond)
	talk(2)
	if _, again := heard.count(); again <= inside {
		t.Fatalf("the microphone plugged back delivered no packets (%d before, %d after)", inside, again)
	}
}
