package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/kiosk"
	"github.com/agentcall/acbridge/kiosk/kiosktest"
)

// The kiosk screen's unit as shipped, read the way systemd reads the parts
// the tests use. The tests run its command lines, so a change to the unit
// is what they check, not a copy of it.
const (
	kioskUnitPath     = "../../systemd/acbridge-kiosk.service"
	kioskDefaultsPath = "../../packaging/acbridge-kiosk.default"
)

// unitKeys returns every assignment of a unit file, key by key in file
// order, with continuation lines joined.
func unitKeys(t *testing.T, path string) map[string][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	keys := map[string][]string{}
	var cont string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if cont == "" && (line == "" || line[0] == '#' || line[0] == ';' || line[0] == '[') {
			continue
		}
		if strings.HasSuffix(line, `\`) {
			cont += strings.TrimSuffix(line, `\`) + " "
			continue
		}
		line, cont = cont+line, ""
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("%s: not an assignment: %q", path, line)
		}
		keys[k] = append(keys[k], v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return keys
}

// envFile reads KEY=VALUE lines as systemd's EnvironmentFile= does for the
// simple (unquoted) values the shipped file has.
func envFile(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.ContainsAny(v, `"'\`) {
			t.Fatalf("%s: %q is not a simple KEY=VALUE line; extend the test's reader", path, line)
		}
		env[k] = v
	}
	return env
}

var unitVarRE = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// expandExec splits a command line as systemd does for the forms the unit
// uses: a word "$VAR" becomes the value's words, "${VAR}" is replaced
// within its word. Quotes are refused, as this reader does not handle them.
func expandExec(t *testing.T, line string, env map[string]string) []string {
	t.Helper()
	if strings.ContainsAny(line, `"'`) {
		t.Fatalf("the command line has quotes; extend the test's reader: %s", line)
	}
	var args []string
	for _, w := range strings.Fields(line) {
		if strings.HasPrefix(w, "$") && !strings.HasPrefix(w, "${") {
			args = append(args, strings.Fields(env[w[1:]])...)
			continue
		}
		args = append(args, unitVarRE.ReplaceAllStringFunc(w, func(m string) string { return env[m[2:len(m)-1]] }))
	}
	return args
}

// kioskUnit is the shipped unit with its one ExecStartPre=, ExecStart= and
// ExecStartPost= expanded with the shipped defaults and the given page URL.
type kioskUnit struct {
	keys            map[string][]string
	pre, exec, post []string
}

func loadKioskUnit(t *testing.T, pageURL string) kioskUnit {
	t.Helper()
	keys := unitKeys(t, kioskUnitPath)
	env := envFile(t, kioskDefaultsPath)
	if pageURL != "" {
		env["ACBRIDGE_KIOSK_URL"] = pageURL
	}
	one := func(k string) string {
		if len(keys[k]) != 1 {
			t.Fatalf("%s: want exactly one %s=, got %q", kioskUnitPath, k, keys[k])
		}
		return keys[k][0]
	}
	return kioskUnit{keys: keys, pre: expandExec(t, one("ExecStartPre"), env), exec: expandExec(t, one("ExecStart"), env),
		post: expandExec(t, one("ExecStartPost"), env)}
}

// What the unit promises, from its text: things that only a real boot with
// systemd and a screen would show otherwise.
func TestKioskUnitText(t *testing.T) {
	u := loadKioskUnit(t, "")
	want := map[string]string{
		"Restart":               "always", // also after a clean exit, and after cage exits with the browser
		"StartLimitIntervalSec": "0",      // never gives up
		"EnvironmentFile":       "/etc/default/acbridge-kiosk",
		"User":                  "acbridge-kiosk",
		"PAMName":               "login",
		"TTYPath":               "/dev/tty7",
		"WantedBy":              "multi-user.target",
	}
	for k, v := range want {
		if !slices.Contains(u.keys[k], v) {
			t.Errorf("%s=%q, want %s=%s", k, u.keys[k], k, v)
		}
	}
	for _, k := range []string{"RestartSec", "TimeoutStartSec"} {
		if len(u.keys[k]) == 0 {
			t.Errorf("no %s=", k)
		}
	}
	for _, k := range []string{"Wants", "After"} {
		if !slices.ContainsFunc(u.keys[k], func(v string) bool { return slices.Contains(strings.Fields(v), "acbridge.service") }) {
			t.Errorf("%s= does not name acbridge.service: %q", k, u.keys[k])
		}
	}
	// "+" on both waits: a PAM session of a wait's own on tty7 is hung up
	// when the wait ends, with cage on tty7 (the unit says why).
	if len(u.pre) < 2 || u.pre[0] != "+/usr/bin/acbridge" || u.pre[1] != "kiosk-wait" || u.pre[len(u.pre)-1] != "http://127.0.0.1:8080/" {
		t.Errorf("ExecStartPre= is not acbridge kiosk-wait on the page: %q", u.pre)
	}
	if len(u.post) < 2 || u.post[0] != "+/usr/bin/acbridge" || u.post[1] != "kiosk-wait" || !slices.Contains(u.post, "--shown") || u.post[len(u.post)-1] != "http://127.0.0.1:8080/" {
		t.Errorf("ExecStartPost= is not acbridge kiosk-wait --shown on the page: %q", u.post)
	}
	sep := slices.Index(u.exec, "--")
	if len(u.exec) < 3 || u.exec[0] != "/usr/bin/cage" || sep < 0 || sep+1 >= len(u.exec) || u.exec[sep+1] != "/usr/bin/chromium" {
		t.Fatalf("ExecStart= is not cage running /usr/bin/chromium: %q", u.exec)
	}
	browser := u.exec[sep+1:]
	// docs/kiosk.md's flags, in kiosk mode and on Wayland; the page last.
	for _, f := range []string{"--kiosk", "--ozone-platform=wayland", "--noerrdialogs", "--disable-infobars", "--incognito",
		"--no-first-run", "--disable-features=Translate", "--disable-pinch", "--overscroll-history-navigation=0",
		"--check-for-update-interval=31536000",
		// The network service in process: its restart on a slow start lost the page (the unit says why).
		"--enable-features=NetworkServiceInProcess2"} {
		if !slices.Contains(browser, f) {
			t.Errorf("the browser's flags lack %s: %q", f, browser)
		}
	}
	if browser[len(browser)-1] != "http://127.0.0.1:8080/" {
		t.Errorf("the browser does not open the page last: %q", browser)
	}
	for _, a := range append(slices.Clone(u.pre), u.exec...) {
		// The sandbox stays on; the page's token never goes on a command line.
		if a == "--no-sandbox" || strings.Contains(strings.ToLower(a), "token") || strings.HasPrefix(a, "--app") {
			t.Errorf("the unit's command lines must not carry %q", a)
		}
	}

	// Shipped, and never enabled by the package.
	nfpm, err := os.ReadFile("../../packaging/nfpm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"src: systemd/acbridge-kiosk.service\n    dst: /lib/systemd/system/acbridge-kiosk.service",
		"src: packaging/acbridge-kiosk.default\n    dst: /etc/default/acbridge-kiosk\n    type: config",
		"src: systemd/acbridge-kiosk.sysusers\n    dst: /usr/lib/sysusers.d/acbridge-kiosk.conf",
	} {
		if !strings.Contains(string(nfpm), s) {
			t.Errorf("packaging/nfpm.yaml does not ship %q", s)
		}
	}
	if strings.Contains(string(nfpm), ".wants/acbridge-kiosk") {
		t.Error("packaging/nfpm.yaml installs an enable link for acbridge-kiosk.service")
	}
	postinst, err := os.ReadFile(filepath.Join("../../packaging/scripts/postinst"))
	if err != nil {
		t.Fatal(err)
	}
	// An enable or a start only as dh_installsystemd --no-enable has it:
	// on an upgrade of a package that installed the unit, and only where
	// the operator had enabled it.
	var code []string
	for _, line := range strings.Split(string(postinst), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			code = append(code, line)
		}
	}
	for i, line := range code {
		guard := strings.Join(code[max(0, i-3):i], "\n")
		guarded := strings.Contains(guard, "debian-installed acbridge-kiosk.service") && strings.Contains(guard, "was-enabled acbridge-kiosk.service")
		if strings.Contains(line, "acbridge-kiosk") && regexp.MustCompile(`\b(enable|start|restart)\b`).MatchString(line) &&
			!strings.Contains(line, "try-restart") && !guarded {
			t.Errorf("postinst enables or starts the kiosk screen: %s", line)
		}
		if strings.HasPrefix(line, "for u in") && strings.Contains(line, "acbridge-kiosk") {
			t.Errorf("postinst puts the kiosk screen in the loop that enables units: %s", line)
		}
	}
}

// acbridge kiosk-wait: the usage errors and the fix named when nothing
// answers.
func TestKioskWaitCommand(t *testing.T) {
	run := func(args ...string) (int, string) {
		var out, errb strings.Builder
		code := runMain(context.Background(), &env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb}, append([]string{"kiosk-wait"}, args...))
		return code, out.String() + errb.String()
	}
	if code, out := run(); code != 2 || !strings.Contains(out, "/etc/default/acbridge-kiosk") {
		t.Errorf("no URL: status %d, output %q", code, out)
	}
	if code, out := run("--url", "http://192.0.2.1:8080/?canary-token"); code != 2 || strings.Contains(out, "canary") || !strings.Contains(out, "kiosk.listen") {
		t.Errorf("a URL that is not the page: status %d, output %q", code, out)
	}
	free := kiosktest.FreeAddr(t)
	code, out := run("--timeout", "300ms", "--url", "http://"+free+"/")
	if code != 1 || !strings.Contains(out, "systemctl status acbridge") || !strings.Contains(out, "kiosk.listen") {
		t.Errorf("nothing on the port: status %d, output %q", code, out)
	}

	// --shown, as ExecStartPost=: the page served but shown by no browser
	// fails at the timeout; when the screen's process (MAINPID) has
	// exited, at once rather than at the timeout.
	s, err := kiosk.New(&kiosk.Options{Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Run(context.Background()) }()
	defer func() { s.Close(); <-served }()
	if err := kiosk.Wait(t.Context(), s.URL(), nil); err != nil {
		t.Fatal(err)
	}
	if code, out := run("--shown", "--timeout", "300ms", "--url", s.URL()); code != 1 || !strings.Contains(out, "no browser showed it") {
		t.Errorf("--shown with no page connected: status %d, output %q", code, out)
	}
	exited := exec.Command("true")
	if err := exited.Run(); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MAINPID", strconv.Itoa(exited.Process.Pid))
	start := time.Now()
	if code, out := run("--shown", "--timeout", "60s", "--url", s.URL()); code != 1 || !strings.Contains(out, "exited before a browser showed the page") {
		t.Errorf("--shown after the screen's process exited: status %d, output %q", code, out)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("--shown waited %v for a screen whose process had exited", d)
	}
}
