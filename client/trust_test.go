package client_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentcall/acbridge/agent"
	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/client/clienttest"
	"github.com/agentcall/acbridge/health"
)

// privateCAAgent serves the reference agent over TLS on loopback with a
// certificate for agent.test from a private CA, and returns the agent's
// port and the CA file.
func privateCAAgent(t *testing.T) (port, caFile string) {
	t.Helper()
	ca := clienttest.NewCA(t)
	caFile, certFile, keyFile := ca.WriteFiles(t, t.TempDir(), "agent.test")
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	a, err := agent.New(&agent.Options{Physical: true})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(a)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes
	srv.StartTLS()
	t.Cleanup(func() { srv.Close(); a.Close() })
	return srv.URL[strings.LastIndex(srv.URL, ":")+1:], caFile
}

// An agent whose certificate comes from a private CA is refused with the
// fix naming agent.ca_file until the CA is given, and then reached, card
// and session; a certificate for another name names agent.url. Both
// refusals are lasting (health problems with the person's words); other
// failures are not.
func TestPrivateCA(t *testing.T) {
	port, caFile := privateCAAgent(t)
	lookup := clienttest.LookupTable(map[string]string{"agent.test": "127.0.0.1", "other.test": "127.0.0.1"})
	ctx := context.Background()
	base := "https://agent.test:" + port

	_, err := client.Discover(ctx, base, "", &client.Policy{AllowInsecureLocal: true, LookupIP: lookup})
	if w := client.Lasting(err); w != client.WarnCertAuthority || !strings.Contains(err.Error(), "certificate signed by unknown authority; if the agent's certificate comes from a private CA, give that CA's certificate (PEM) in agent.ca_file") {
		t.Fatalf("without the CA: %v (problem %v)", err, w)
	}
	if health.FixOf(err) != client.WarnCertAuthority.Fix {
		t.Errorf("health.FixOf: %q", health.FixOf(err))
	}

	pool, err := client.LoadCAFile(caFile)
	if err != nil {
		t.Fatal(err)
	}
	p := &client.Policy{AllowInsecureLocal: true, LookupIP: lookup, TLSConfig: &tls.Config{RootCAs: pool}}
	_, err = client.Discover(ctx, "https://other.test:"+port, "", p)
	if w := client.Lasting(err); w != client.WarnCertName || !strings.Contains(err.Error(), "certificate is valid for agent.test, not other.test; set agent.url to a name or address the agent's certificate lists") {
		t.Fatalf("another name: %v (problem %v)", err, w)
	}

	ag, err := client.Discover(ctx, base, "", p)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := ag.DialWebSocket(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s, err := client.Start(ctx, tr, ag.Card, nil)
	if err != nil {
		t.Fatalf("session over the private CA: %v", err)
	}
	s.Close()

	// Not lasting: nobody listening, a timeout.
	_, err = client.Discover(ctx, "https://agent.test:1", "", p)
	if err == nil || client.Lasting(err) != nil {
		t.Errorf("connection refused: %v, lasting %v", err, client.Lasting(err))
	}
}

// A PEM bundle (comments and repeats allowed) is trusted; a file that
// cannot be a CA bundle is refused, saying why, without blocking on a
// FIFO.
func TestLoadCAFile(t *testing.T) {
	dir := t.TempDir()
	ca := clienttest.NewCA(t)
	_, key := ca.Issue(t, "agent.test")
	write := func(name string, b []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	good := write("ca.pem", append(append([]byte("# intranet CA\n"), ca.PEM...), ca.PEM...))
	pool, err := client.LoadCAFile(good)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ca.Cert.Verify(x509.VerifyOptions{Roots: pool}); err != nil {
		t.Errorf("the private CA is not trusted: %v", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		filepath.Join(dir, "missing.pem"):        "does not exist",
		dir:                                      "is not a regular file",
		fifo:                                     "is not a regular file",
		write("empty.pem", nil):                  "holds no PEM certificate",
		write("der.cer", ca.Cert.Raw):            "holds no PEM certificate",
		write("key.pem", append(ca.PEM, key...)): `holds a PEM "EC PRIVATE KEY" block: give only the CA's certificate (never a private key)`,
		write("bad.pem", []byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")): "certificate 1 cannot be parsed",
	} {
		done := make(chan error, 1)
		go func() { _, err := client.LoadCAFile(path); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %v; want %q", filepath.Base(path), err, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: LoadCAFile blocked", filepath.Base(path))
		}
	}
}
