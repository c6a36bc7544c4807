package netlab

import (
	"path/filepath"
	"time"

	"github.com/agentcall/acbridge/internal/testutil/needs"
)

// TURNUser is the user the lab's TURN server knows.
const TURNUser = "kiosk"

// TURN runs coturn in the agent's namespace on TURNAddr: TURN over TLS on
// TCP 443 (and plain TURN on 3478), relaying from TURNAddr, with cert and
// key for its TLS and one long-term user, TURNUser with password. It is
// stopped when the test ends.
func (l *Lab) TURN(cert, key, password string) *Proc {
	l.t.Helper()
	bin := needs.Tool(l.t, "coturn", "turnserver")
	dir := l.t.TempDir()
	// Line-buffered: coturn's log to a pipe is otherwise held in stdio's
	// buffer, and the readiness line may never arrive.
	stdbuf := needs.Tool(l.t, "coreutils", "stdbuf")
	cmd := l.Command(l.Agent, stdbuf, "-oL", bin, "-n", "--no-cli", "--no-dtls", "--simple-log", "--log-file", "stdout",
		"--listening-ip", TURNAddr.String(), "--relay-ip", TURNAddr.String(),
		"--listening-port", "3478", "--tls-listening-port", "443",
		"--cert", cert, "--pkey", key,
		"--lt-cred-mech", "--realm", "acbridge.test", "--user", TURNUser+":"+password, "--fingerprint",
		"--db", filepath.Join(dir, "turndb"), "--pidfile", filepath.Join(dir, "turnserver.pid"))
	p := l.Start(cmd)
	// Not "0: : Total …": the number is coturn's uptime in seconds, and
	// on a busy machine it reached this line at second 1.
	p.WaitContains(l.t, ": Total General servers", 60*time.Second)
	return p
}
