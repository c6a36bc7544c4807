package accept

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// The JUnit XML written here follows the structure that CI tools read: the
// Jenkins xUnit plugin's junit-10.xsd (testsuites > testsuite > testcase
// with failure / skipped / system-out), which is also what GitLab, GitHub
// test reporters and Ant's formatter accept. One testsuite per group, one
// testcase per step; a failure carries the reason as its message and the
// fix in its text. Timestamps are UTC without a zone, as Ant writes them.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr"`
	Hostname   string          `xml:"hostname,attr"`
	ID         int             `xml:"id,attr"`
	Package    string          `xml:"package,attr"`
	Properties *junitProps     `xml:"properties,omitempty"`
	Cases      []junitTestCase `xml:"testcase"`
}

type junitProps struct {
	Props []junitProp `xml:"property"`
}

type junitProp struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitTestCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

const junitTimestamp = "2006-01-02T15:04:05"

func seconds(ms float64) string { return fmt.Sprintf("%.3f", ms/1000) }

// WriteJUnit writes the report as JUnit XML.
func (r *Report) WriteJUnit(w io.Writer) error {
	doc := junitSuites{Name: "acbridge acceptance", Time: seconds(r.DurationMs)}
	for gi, g := range Groups {
		s := junitSuite{Name: "acceptance." + g, ID: gi, Package: "acbridge.accept", Hostname: r.Device.Hostname,
			Timestamp: r.StartedAt.UTC().Format(junitTimestamp)}
		var ms float64
		first := true
		for _, st := range r.Steps {
			if st.Group != g {
				continue
			}
			if first {
				s.Timestamp = st.StartedAt.UTC().Format(junitTimestamp)
				first = false
			}
			ms += st.DurationMs
			tc := junitTestCase{Name: st.ID, Classname: "acbridge.accept." + g, Time: seconds(st.DurationMs), SystemOut: stepText(&st)}
			switch st.Result {
			case Fail:
				s.Failures++
				text := st.Reason
				if st.Fix != "" {
					text += "\nfix: " + st.Fix
				}
				tc.Failure = &junitMessage{Message: st.Reason, Type: "fail", Text: text}
			case Skip:
				s.Skipped++
				tc.Skipped = &junitMessage{Message: st.Reason}
			}
			s.Cases = append(s.Cases, tc)
		}
		if len(s.Cases) == 0 {
			continue
		}
		s.Tests = len(s.Cases)
		s.Time = seconds(ms)
		if g == GroupEnvironment || len(doc.Suites) == 0 {
			s.Properties = identityProps(r)
		}
		doc.Suites = append(doc.Suites, s)
		doc.Tests += s.Tests
		doc.Failures += s.Failures
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("accept: junit: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// identityProps puts the device identity where dashboards show suite
// properties.
func identityProps(r *Report) *junitProps {
	d := r.Device
	p := &junitProps{}
	add := func(name, value string) {
		if value != "" {
			p.Props = append(p.Props, junitProp{Name: name, Value: value})
		}
	}
	add("hostname", d.Hostname)
	add("acbridgeVersion", d.Version)
	add("os", d.OS+"/"+d.Arch)
	add("reader", d.Reader)
	add("camera", d.Camera)
	add("microphone", d.Microphone)
	add("speaker", d.Speaker)
	add("keystoreFingerprint", d.KeystoreFingerprint)
	add("agent", d.Agent)
	add("simulation", r.Simulation)
	return p
}

// stepText is the step's instruction, measurements and notes, for the
// testcase's system-out.
func stepText(s *StepResult) string {
	var b strings.Builder
	if s.Instruction != "" {
		fmt.Fprintf(&b, "instruction: %s\n", s.Instruction)
	}
	for _, m := range s.Measurements {
		fmt.Fprintf(&b, "%s: %s\n", m.Name, strings.TrimSpace(fmt.Sprintf("%g %s", m.Value, m.Unit)))
	}
	for _, n := range s.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	return strings.TrimRight(b.String(), " \n")
}
