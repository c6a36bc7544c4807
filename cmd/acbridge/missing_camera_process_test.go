package main

import (
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/agent"
)

// A configured camera that is not there is not silent: start-up logs it
// once at WARN with its key, and a PHOTO press says why there is no photo.
func TestRunMissingCameraSaysWhy(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ag, err := agent.New(&agent.Options{Physical: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: ag}
	go srv.Serve(ln)
	defer func() { srv.Close(); ag.Close() }()

	dir := t.TempDir()
	const cam = "/dev/video-acbridge-none"
	cfg := daemonConfig(ln.Addr().String(), nil, filepath.Join(dir, "keystore.json")) +
		"[modalities]\nenabled = [\"photo\"]\n[camera]\ndevice = \"" + cam + "\"\n" +
		"[[button]]\ncontrol = \"photo\"\nsource = \"terminal\"\nchar = \"p\"\n"
	d := newDaemonFile(t, dir, cfg)
	d.start()
	d.wait(d.out, "[connected to", 1)
	d.say("p")
	d.wait(d.out, "[photo is not available in this session: no camera at "+cam+" (camera.device); cameras here: ", 1)
	if n := strings.Count(d.err.String(), `msg="configured device missing" key=camera.device`); n != 1 {
		t.Errorf("%d WARN lines for camera.device, want 1:\n%s", n, d.err.String())
	}
}
