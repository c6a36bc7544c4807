package main

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/bridge/bridgetest"
	"github.com/agentcall/acbridge/protocol"
	"github.com/coder/websocket"
)

// agentProc is `acbridge agent` running in-process until stop.
type agentProc struct {
	url    string // from the "listening on URL" line
	stop   context.CancelFunc
	done   chan int
	stderr bridgetest.Transcript
}

func (p *agentProc) log() string { return p.stderr.String() }

// startAgentCmd runs the command and waits for its "listening on" line, the
// way README users and other tools learn the port.
func startAgentCmd(t *testing.T, args ...string) *agentProc {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	p := &agentProc{stop: cancel, done: make(chan int, 1)}
	go func() {
		code := runMain(ctx, &env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: pw}, append([]string{"agent"}, args...))
		pw.Close()
		p.done <- code
	}()
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := sc.Text()
			p.stderr.Write([]byte(line + "\n"))
			if u, ok := strings.CutPrefix(line, "listening on "); ok {
				found <- u
			}
		}
	}()
	t.Cleanup(func() { p.shutdown(t) })
	select {
	case p.url = <-found:
	case code := <-p.done:
		p.done <- code
		t.Fatalf("agent exited with %d before listening:\n%s", code, p.log())
	case <-time.After(10 * time.Second):
		t.Fatalf("no listening line:\n%s", p.log())
	}
	return p
}

func (p *agentProc) shutdown(t *testing.T) int {
	t.Helper()
	p.stop()
	select {
	case code := <-p.done:
		p.done <- code
		return code
	case <-time.After(30 * time.Second):
		t.Fatalf("agent did not stop:\n%s", p.log())
		return -1
	}
}

func getCard(t *testing.T, hc *http.Client, base string) *protocol.Card {
	t.Helper()
	resp, err := hc.Get(base + "/.well-known/agent-card.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, protocol.MaxCardBytes+1))
	card, err := protocol.ParseCard(raw)
	if err != nil {
		t.Fatalf("card: %v\n%s", err, raw)
	}
	return card
}

// wsSession dials the card's AG-UI URL and starts a session.
func wsSession(t *testing.T, hc *http.Client, card *protocol.Card, h http.Header) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	u := "ws" + strings.TrimPrefix(card.Params.AGUI.URL, "http")
	conn, resp, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPClient: hc, HTTPHeader: h})
	if err != nil {
		status := "no response"
		if resp != nil {
			status = resp.Status
		}
		t.Fatalf("dial %s: %v (%s)", u, err, status)
	}
	b, _ := protocol.MarshalClientMessage(&protocol.ClientMessage{Type: protocol.TypeSessionStart, SessionID: "cmd-test"})
	if err := conn.Write(ctx, websocket.MessageText, b); err != nil {
		t.Fatal(err)
	}
	_, got, err := conn.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	env, err := protocol.ParseEnvelope(got)
	if err != nil || env.Sequence != 1 || env.Event.Type != protocol.EventSessionEstablished {
		t.Fatalf("first envelope %s (%v)", got, err)
	}
	return conn
}

func TestAgentCommandInsecureLocal(t *testing.T) {
	p := startAgentCmd(t, "--listen", "127.0.0.1:0", "--insecure-local")
	if !strings.HasPrefix(p.url, "http://127.0.0.1:") {
		t.Fatalf("listening line URL %q", p.url)
	}
	card := getCard(t, http.DefaultClient, p.url)
	if card.Params.AGUI.URL != p.url+"/agui" {
		t.Fatalf("agui URL %s", card.Params.AGUI.URL)
	}
	conn := wsSession(t, http.DefaultClient, card, nil)
	defer conn.CloseNow()
	// SIGINT/SIGTERM arrive as a context cancel: graceful stop, exit 0,
	// open sessions told the agent is going away. The client reads
	// meanwhile, as a live client does, so it answers the close handshake.
	closed := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, _, err := conn.Read(ctx)
		closed <- err
	}()
	if code := p.shutdown(t); code != 0 {
		t.Fatalf("exit %d:\n%s", code, p.log())
	}
	if err := <-closed; websocket.CloseStatus(err) != websocket.StatusGoingAway {
		t.Fatalf("session after shutdown: %v", err)
	}
	if !strings.Contains(p.log(), "shutting down") {
		t.Errorf("no shutdown log:\n%s", p.log())
	}
}

func TestAgentCommandToken(t *testing.T) {
	dir := t.TempDir()
	tokenPath := filepath.Join(dir, "token")
	const token = "cmd-CANARY-token-81c3"
	if err := os.WriteFile(tokenPath, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startAgentCmd(t, "--listen", "127.0.0.1:0", "--insecure-local", "--token-file", tokenPath)
	card := getCard(t, http.DefaultClient, p.url)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(card.Params.AGUI.URL, "http"), nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("without token: %v %v", err, resp)
	}
	conn := wsSession(t, http.DefaultClient, card, http.Header{"Authorization": {"Bearer " + token}})
	conn.CloseNow()
	p.shutdown(t)
	if strings.Contains(p.log(), "CANARY") {
		t.Fatalf("the token reached the log:\n%s", p.log())
	}

	// A token file others can read is refused with the fix.
	loose := filepath.Join(dir, "loose")
	if err := os.WriteFile(loose, []byte(token), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := run(t, "agent", "--listen", "127.0.0.1:0", "--insecure-local", "--token-file", loose)
	if code != 1 || !strings.Contains(errs, "chmod") || strings.Contains(errs, "CANARY") {
		t.Fatalf("loose token file: exit %d %q", code, errs)
	}
}

func TestAgentCommandTLS(t *testing.T) {
	certPath, keyPath, pool := selfSigned(t)
	p := startAgentCmd(t, "--listen", "127.0.0.1:0", "--tls-cert", certPath, "--tls-key", keyPath)
	if !strings.HasPrefix(p.url, "https://127.0.0.1:") {
		t.Fatalf("listening line URL %q", p.url)
	}
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	defer hc.CloseIdleConnections()
	card := getCard(t, hc, p.url)
	if !strings.HasPrefix(card.Params.AGUI.URL, "https://127.0.0.1:") {
		t.Fatalf("agui URL %s", card.Params.AGUI.URL)
	}
	conn := wsSession(t, hc, card, nil) // wss
	conn.CloseNow()
	if code := p.shutdown(t); code != 0 {
		t.Fatalf("exit %d:\n%s", code, p.log())
	}
}

func TestAgentCommandUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "--listen"},
		{[]string{"--listen", "127.0.0.1:0"}, "--insecure-local"},
		{[]string{"--listen", "127.0.0.1:0"}, "--tls-cert FILE --tls-key FILE"},
		{[]string{"--listen", "0.0.0.0:0", "--insecure-local"}, "loopback"},
		{[]string{"--listen", ":0", "--insecure-local"}, "loopback"},
		{[]string{"--listen", "192.0.2.1:0", "--insecure-local"}, "loopback"},
		{[]string{"--listen", "127.0.0.1", "--insecure-local"}, "host:port"},
		{[]string{"--listen", "127.0.0.1:0", "--tls-cert", "c.pem"}, "go together"},
		{[]string{"--listen", "127.0.0.1:0", "--tls-cert", "c.pem", "--tls-key", "k.pem", "--insecure-local"}, "not both"},
		{[]string{"--listen", "127.0.0.1:0", "--insecure-local", "--public-url", "ftp://x"}, "--public-url"},
	} {
		code, _, errs := run(t, append([]string{"agent"}, tc.args...)...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q lacks %q", tc.args, code, errs, tc.want)
		}
	}
	code, _, errs := run(t, "agent", "--listen", "127.0.0.1:0", "--tls-cert", "/nonexistent/c.pem", "--tls-key", "/nonexistent/k.pem")
	if code != 1 || !strings.Contains(errs, "TLS certificate") {
		t.Errorf("missing cert files: exit %d %q", code, errs)
	}
	// A port already in use is a clear runtime error.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	code, _, errs = run(t, "agent", "--listen", ln.Addr().String(), "--insecure-local")
	if code != 1 || !strings.Contains(errs, "address already in use") {
		t.Errorf("busy port: exit %d %q", code, errs)
	}
}

// selfSigned writes a throw-away certificate for 127.0.0.1.
func selfSigned(t *testing.T) (certPath, keyPath string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "acbridge test agent"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:         true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certPath, keyPath = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certPath, keyPath, pool
}
