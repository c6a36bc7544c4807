package accept_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/accept"
	"github.com/agentcall/acbridge/internal/testutil/needs"
)

// checkReports writes both reports of r and checks them: no UID, no image
// bytes (the photo written to show is the canary), a JUnit file that
// validates and agrees with the JSON one.
func checkReports(t *testing.T, r *simRun, show string) {
	t.Helper()
	var js, ju bytes.Buffer
	if err := r.rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if err := r.rep.WriteJUnit(&ju); err != nil {
		t.Fatal(err)
	}
	var back accept.Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || back.Format != accept.ReportFormat || len(back.Steps) != len(r.rep.Steps) {
		t.Errorf("the JSON report does not read back: %v", err)
	}
	for what, b := range map[string][]byte{"JSON report": js.Bytes(), "JUnit report": ju.Bytes(), "output": r.out, "log": r.log} {
		assertNoUID(t, what, b)
		assertNoImage(t, what, b, show)
	}
	path := filepath.Join(t.TempDir(), "r.xml")
	if err := os.WriteFile(path, ju.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	checkJUnit(t, path, r.rep)
}

// longBase64 finds base64 runs long enough to carry image data.
var longBase64 = regexp.MustCompile(`[A-Za-z0-9+/]{120,}={0,2}`)

// assertNoImage checks b for the photo the acceptance took (written to
// show on request): its bytes raw, in base64 and in hex, and for base64
// runs long enough to be any image.
func assertNoImage(t *testing.T, where string, b []byte, show string) {
	t.Helper()
	if m := longBase64.Find(b); m != nil {
		t.Errorf("%s holds a long base64 run (%d chars): image bytes?", where, len(m))
	}
	if bytes.Contains(b, []byte("/9j/")) || bytes.Contains(b, []byte{0xFF, 0xD8, 0xFF}) {
		t.Errorf("%s holds a JPEG start", where)
	}
	if show == "" {
		return
	}
	photo, err := os.ReadFile(show)
	if err != nil {
		t.Fatalf("the photo asked for with ShowPath: %v", err)
	}
	if len(photo) < 1000 {
		t.Fatalf("the shown photo has only %d bytes", len(photo))
	}
	for _, off := range []int{200, len(photo) / 2, len(photo) - 100} {
		chunk := photo[off : off+48]
		for _, f := range [][]byte{chunk, []byte(base64.StdEncoding.EncodeToString(chunk)), []byte(strings.ToLower(hexString(chunk)))} {
			if bytes.Contains(b, f) {
				t.Errorf("%s holds bytes of the photo", where)
			}
		}
	}
}

func hexString(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

// junitDoc is what a CI tool reads of the file.
type junitDoc struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
		Skipped  int    `xml:"skipped,attr"`
		Props    []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:"value,attr"`
		} `xml:"properties>property"`
		Cases []struct {
			Name      string `xml:"name,attr"`
			Classname string `xml:"classname,attr"`
			Time      string `xml:"time,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Skipped *struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// checkJUnit validates the file against testdata/junit.xsd with xmllint
// and checks that its counts and cases agree with the report.
func checkJUnit(t *testing.T, path string, rep *accept.Report) {
	t.Helper()
	t.Run("xsd", func(t *testing.T) { validateXSD(t, path) })
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc junitDoc
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("JUnit: %v", err)
	}
	tests, failures, skipped := 0, 0, 0
	seen := map[string]bool{}
	for _, s := range doc.Suites {
		f, sk := 0, 0
		for _, c := range s.Cases {
			st := rep.Step(c.Name)
			if st == nil {
				t.Errorf("JUnit case %s is no step", c.Name)
				continue
			}
			seen[c.Name] = true
			if "acceptance."+st.Group != s.Name || c.Classname != "acbridge.accept."+st.Group {
				t.Errorf("JUnit case %s in suite %s (class %s)", c.Name, s.Name, c.Classname)
			}
			switch {
			case c.Failure != nil:
				f++
				if st.Result != accept.Fail || c.Failure.Message != st.Reason || (st.Fix != "" && !strings.Contains(c.Failure.Text, "fix: "+st.Fix)) {
					t.Errorf("JUnit failure of %s: %+v, step %+v", c.Name, c.Failure, st)
				}
			case c.Skipped != nil:
				sk++
				if st.Result != accept.Skip || c.Skipped.Message != st.Reason {
					t.Errorf("JUnit skip of %s: %+v", c.Name, c.Skipped)
				}
			case st.Result != accept.Pass:
				t.Errorf("JUnit has %s passing; the step is %s", c.Name, st.Result)
			}
		}
		if s.Tests != len(s.Cases) || s.Failures != f || s.Skipped != sk || s.Errors != 0 {
			t.Errorf("suite %s counts tests=%d failures=%d skipped=%d, cases say %d/%d/%d", s.Name, s.Tests, s.Failures, s.Skipped, len(s.Cases), f, sk)
		}
		tests, failures, skipped = tests+s.Tests, failures+f, skipped+sk
	}
	if doc.Tests != tests || doc.Failures != failures || tests != len(rep.Steps) || failures != rep.Failed || skipped != rep.Skipped {
		t.Errorf("JUnit totals %d tests %d failures, report %d steps %d failed", doc.Tests, doc.Failures, len(rep.Steps), rep.Failed)
	}
	if len(seen) != len(rep.Steps) {
		t.Errorf("JUnit names %d distinct steps of %d", len(seen), len(rep.Steps))
	}
	if len(doc.Suites) == 0 || len(doc.Suites[0].Props) == 0 || doc.Suites[0].Props[0].Name != "hostname" {
		t.Errorf("the first suite does not carry the device identity")
	}
}

// validateXSD runs xmllint. Debian's libxml2-utils provides it; `make test`
// installs it and sets ACBRIDGE_REQUIRE_SERVICES, so there a missing
// xmllint fails instead of skipping.
func validateXSD(t *testing.T, path string) {
	t.Helper()
	xmllint := needs.Tool(t, "libxml2-utils", "xmllint")
	out, err := exec.Command(xmllint, "--noout", "--nonet", "--schema", "testdata/junit.xsd", path).CombinedOutput()
	if err != nil {
		t.Errorf("the JUnit report does not validate against testdata/junit.xsd: %v\n%s", err, out)
	}
}

// A report with every result, texts that need escaping and a control
// character validates, and the XSD rejects what CI tools reject.
func TestJUnitOfEveryResult(t *testing.T) {
	start := time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)
	rep := &accept.Report{Format: accept.ReportFormat, StartedAt: start, FinishedAt: start.Add(3 * time.Second), DurationMs: 3000,
		Device: accept.Identity{Hostname: "kiosk-<7>", Version: "1.0 & co", OS: "linux", Arch: "arm64", KeystoreFingerprint: "ks1-0011223344556677"},
		Passed: 1, Failed: 1, Skipped: 1,
		Steps: []accept.StepResult{
			{ID: "env.clock", Group: accept.GroupEnvironment, Title: "the clock", Result: accept.Pass, StartedAt: start, DurationMs: 1.5,
				Measurements: []accept.Measurement{{Name: "maxError", Value: 16.5, Unit: "ms"}}, Notes: []string{"synchronized"}},
			{ID: "nfc.reader", Group: accept.GroupNFC, Title: "reader", Result: accept.Fail, StartedAt: start, DurationMs: 1200,
				Reason: "nfc: reader \"<x>\" & \x01 not connected", Fix: "plug it in; check `pcsc_scan -r` > /dev/null"},
			{ID: "agent.replay", Group: accept.GroupAgent, Title: "replay", Result: accept.Skip, Reason: "not requested", StartedAt: start},
		}}
	var ju bytes.Buffer
	if err := rep.WriteJUnit(&ju); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "r.xml")
	if err := os.WriteFile(path, ju.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	rep.Steps[1].Reason = strings.ReplaceAll(rep.Steps[1].Reason, "\x01", "\uFFFD")
	checkJUnit(t, path, rep)
	if !strings.Contains(ju.String(), `timestamp="2026-03-01T09:30:00"`) || !strings.Contains(ju.String(), `time="1.200"`) {
		t.Errorf("timestamps or times not in the CI form:\n%s", ju.String())
	}

	t.Run("the schema rejects a broken file", func(t *testing.T) {
		bad := strings.Replace(ju.String(), `tests="1"`, `tests="one"`, 1)
		bad = strings.Replace(bad, `<testcase name="env.clock"`, `<testcase`, 1)
		p := filepath.Join(t.TempDir(), "bad.xml")
		if err := os.WriteFile(p, []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		xmllint, err := exec.LookPath("xmllint")
		if err != nil {
			validateXSD(t, p) // skips or fails as above
			return
		}
		if out, err := exec.Command(xmllint, "--noout", "--nonet", "--schema", "testdata/junit.xsd", p).CombinedOutput(); err == nil {
			t.Errorf("xmllint accepted a testcase without a name and a non-numeric count:\n%s", out)
		}
	})
}
