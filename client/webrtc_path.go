package client

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agentcall/acbridge/health"
	"github.com/pion/webrtc/v4"
)

// WarnNoPath is the problem of a kiosk whose network lets no packet of the
// agent's audio through (UDP blocked, only TCP 443 open, no TURN server
// configured): ICE checked every pair and none answered.
var WarnNoPath = health.Register(&health.Warnable{Code: "agent.nopath", Text: "no network path to the agent's audio",
	Fix:    "a TURN server on port 443 is needed: agent.ice_servers (like [{urls = [\"turns:turn.example.net:443?transport=tcp\"], username = \"kiosk\", credential_file = \"/etc/acbridge/turn.secret\"}])",
	Person: "This kiosk cannot reach its assistant's voice here. Please tell the staff."})

// noPathError is a dial whose ICE checks found no working pair before the
// policy's total timeout.
type noPathError struct{ err error }

func (e *noPathError) Error() string {
	return "client: " + WarnNoPath.Text + "; " + WarnNoPath.Fix + " (" + e.err.Error() + ")"
}
func (e *noPathError) Unwrap() []error { return []error{e.err, WarnNoPath.Err("")} }

// slowChannelGrace is how much longer than the policy's total timeout a
// dial waits for a data channel whose ICE pair is already up: on a lossy
// link the DTLS and SCTP handshakes retransmit, and abandoning a working
// path there only starts them over.
const slowChannelGrace = 15 * time.Second

// RelayOnly and ICEServers are mapped onto pion's configuration here.
func iceConfig(o *WebRTCOptions) webrtc.Configuration {
	cfg := webrtc.Configuration{BundlePolicy: webrtc.BundlePolicyMaxBundle, RTCPMuxPolicy: webrtc.RTCPMuxPolicyRequire}
	for _, s := range o.ICEServers {
		cfg.ICEServers = append(cfg.ICEServers, webrtc.ICEServer{URLs: s.URLs, Username: s.Username, Credential: s.Credential})
	}
	if o.RelayOnly {
		cfg.ICETransportPolicy = webrtc.ICETransportPolicyRelay
	}
	return cfg
}

// iceUp reports whether ICE has a working pair.
func (t *WebRTCTransport) iceUp() bool {
	switch t.pc.ICEConnectionState() {
	case webrtc.ICEConnectionStateConnected, webrtc.ICEConnectionStateCompleted:
		return true
	}
	return false
}

// timedOut is waitOpen's answer to the end of its context: a dial whose
// ICE never found a pair has no path (noPathError); one whose ICE is up
// waits up to slowChannelGrace more under outer, unless outer ended.
func (t *WebRTCTransport) timedOut(ctx, outer context.Context) (context.Context, context.CancelFunc, error) {
	if outer.Err() != nil || !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return nil, nil, t.cands.whyNotUp(fmt.Errorf("client: waiting for the data channel: %w", ctx.Err()))
	}
	if !t.iceUp() {
		return nil, nil, &noPathError{t.cands.whyNotUp(fmt.Errorf("ICE found no working candidate pair: %w", ctx.Err()))}
	}
	t.log.Info("client: ICE is up but the data channel is slow to open; waiting longer", "grace", slowChannelGrace)
	nctx, cancel := context.WithTimeout(outer, slowChannelGrace)
	return nctx, cancel, nil
}
