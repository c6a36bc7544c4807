package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/agentcall/acbridge/accept"
	"github.com/agentcall/acbridge/accept/acceptsim"
	"github.com/agentcall/acbridge/internal/testutil/needs"
	"github.com/agentcall/acbridge/nfc/vpcd/vpcdtest"
)

// run executes acbridge-demo in-process and returns its status and output.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := commands.Run(context.Background(), &env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb}, args)
	return code, out.String(), errb.String()
}

// acceptCanaries are the simulated tags' UIDs; no file or stream the
// command writes may contain them.
var acceptCanaries = [2][]byte{
	{0x04, 0xAC, 0xCE, 0x97, 0x7E, 0x51, 0x11},
	{0x04, 0xAC, 0xCE, 0x97, 0x7E, 0x51, 0x22},
}

func withCanaryTags(t *testing.T) {
	t.Helper()
	old := acceptSim
	acceptSim.Tags = acceptCanaries
	t.Cleanup(func() { acceptSim = old })
}

func assertNoAcceptCanary(t *testing.T, where string, b []byte) {
	t.Helper()
	for _, uid := range acceptCanaries {
		h := hex.EncodeToString(uid)
		for _, f := range []string{string(uid), h, strings.ToUpper(h), fmt.Sprintf("% x", uid), fmt.Sprintf("% X", uid), fmt.Sprint(uid),
			base64.StdEncoding.EncodeToString(uid), base64.RawURLEncoding.EncodeToString(uid)} {
			if bytes.Contains(b, []byte(f)) {
				t.Errorf("%s contains a tag UID (as %q)", where, f)
			}
		}
	}
}

var base64Run = regexp.MustCompile(`[A-Za-z0-9+/]{120,}`)

// assertNoPhoto checks b for the bytes of the photo file.
func assertNoPhoto(t *testing.T, where string, b, photo []byte) {
	t.Helper()
	if base64Run.Match(b) || bytes.Contains(b, []byte("/9j/")) || bytes.Contains(b, []byte{0xFF, 0xD8, 0xFF}) {
		t.Errorf("%s holds image-like data", where)
	}
	for _, off := range []int{100, len(photo) / 2, len(photo) - 80} {
		chunk := photo[off : off+40]
		if bytes.Contains(b, chunk) || bytes.Contains(b, []byte(base64.StdEncoding.EncodeToString(chunk))) || bytes.Contains(b, []byte(hex.EncodeToString(chunk))) {
			t.Errorf("%s holds bytes of the photo", where)
		}
	}
}

func xmllintSchema(t *testing.T, path string) {
	t.Helper()
	xmllint := needs.Tool(t, "libxml2-utils", "xmllint")
	if out, err := exec.Command(xmllint, "--noout", "--nonet", "--schema", "../../accept/testdata/junit.xsd", path).CombinedOutput(); err != nil {
		t.Errorf("%s does not validate: %v\n%s", path, err, out)
	}
}

func TestAcceptSimulate(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
	vpcdtest.Require(t)
	withCanaryTags(t)
	dir := t.TempDir()
	rj, rx, photo := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.xml"), filepath.Join(dir, "photo.jpg")
	code, out, errs := run(t, "accept", "--report", rj, "--junit", rx, "--replay", "--show", photo)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	js, err := os.ReadFile(rj)
	if err != nil {
		t.Fatal(err)
	}
	var rep accept.Report
	if err := json.Unmarshal(js, &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.Accepted || rep.Failed != 0 || rep.Device.Version != version || !strings.Contains(rep.Simulation, "vpcd") {
		t.Errorf("report: accepted %v failed %d version %q simulation %q", rep.Accepted, rep.Failed, rep.Device.Version, rep.Simulation)
	}
	for _, s := range rep.Steps {
		if s.Result != accept.Pass && !acceptsim.NotApplicable(s.ID) {
			t.Errorf("%s: %s %s", s.ID, s.Result, s.Reason)
		}
	}
	if !strings.Contains(out, "ACCEPTED: ") || !strings.Contains(out, "report: "+rj) || !strings.Contains(out, "simulated technician: taps tag 1") {
		t.Errorf("output:\n%s", out)
	}
	xml, err := os.ReadFile(rx)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("junit xsd", func(t *testing.T) { xmllintSchema(t, rx) })
	jpg, err := os.ReadFile(photo)
	if err != nil || len(jpg) < 1000 {
		t.Fatalf("--show wrote no photo: %v", err)
	}
	for what, b := range map[string][]byte{"r.json": js, "r.xml": xml, "stdout": []byte(out), "stderr": []byte(errs)} {
		assertNoAcceptCanary(t, what, b)
		assertNoPhoto(t, what, b, jpg)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 3 {
		t.Errorf("the run left %d files, want the two reports and the photo asked for", len(ents))
	}
}

// Without --show the photo is never written anywhere the command writes.
func TestAcceptKeepsNoPhoto(t *testing.T) {
	vpcdtest.Require(t)
	withCanaryTags(t)
	dir := t.TempDir()
	t.Chdir(dir)
	code, out, errs := run(t, "accept", "--only", "camera", "--report", "r.json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 || ents[0].Name() != "r.json" {
		t.Errorf("files after the run: %v", ents)
	}
	if strings.Contains(out, "photo written") {
		t.Errorf("output mentions a written photo:\n%s", out)
	}
}

func TestDoctorSimulated(t *testing.T) {
	vpcdtest.Require(t)
	code, out, errs := run(t, "doctor")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, id := range accept.StepIDs(nil)[:10] {
		if !strings.Contains(out, "] "+id+": ") {
			t.Errorf("doctor did not run %s", id)
		}
	}
	if !strings.Contains(out, "no problem found") || strings.Contains(out, "nfc.tap1") {
		t.Errorf("output:\n%s", out)
	}
}
