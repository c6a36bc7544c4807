package accept

import (
	"encoding/json"
	"io"
	"time"
)

// ReportFormat names the JSON report's layout; a change that removes or
// redefines a field gets a new number.
const ReportFormat = "acbridge-acceptance/1"

// Identity says which device was accepted. It names hardware, never a tag
// UID; the keystore appears only as its fingerprint.
type Identity struct {
	Hostname            string `json:"hostname"`
	Version             string `json:"acbridgeVersion"`
	OS                  string `json:"os"`
	Arch                string `json:"arch"`
	Reader              string `json:"reader,omitempty"`
	Camera              string `json:"camera,omitempty"`
	Microphone          string `json:"microphone,omitempty"`
	Speaker             string `json:"speaker,omitempty"`
	KeystoreFingerprint string `json:"keystoreFingerprint,omitempty"`
	Agent               string `json:"agent,omitempty"` // the agent's origin
}

// Report is the outcome of one acceptance run.
type Report struct {
	Format     string    `json:"format"`
	Device     Identity  `json:"device"`
	Config     string    `json:"config,omitempty"`
	Simulation string    `json:"simulation,omitempty"`
	StartedAt  time.Time `json:"startedAt"`
	FinishedAt time.Time `json:"finishedAt"`
	DurationMs float64   `json:"durationMs"`
	// Accepted is true when no step failed.
	Accepted    bool         `json:"accepted"`
	Interrupted bool         `json:"interrupted,omitempty"`
	Passed      int          `json:"passed"`
	Failed      int          `json:"failed"`
	Skipped     int          `json:"skipped"`
	Steps       []StepResult `json:"steps"`
}

func (r *Report) finish(now time.Time) {
	r.FinishedAt = now.UTC()
	r.DurationMs = float64(r.FinishedAt.Sub(r.StartedAt).Microseconds()) / 1000
	r.Passed, r.Failed, r.Skipped = 0, 0, 0
	for _, s := range r.Steps {
		switch s.Result {
		case Pass:
			r.Passed++
		case Fail:
			r.Failed++
		case Skip:
			r.Skipped++
		}
	}
	r.Accepted = r.Failed == 0 && !r.Interrupted && len(r.Steps) > 0
}

// Step returns the result of the step with id, or nil.
func (r *Report) Step(id string) *StepResult {
	for i := range r.Steps {
		if r.Steps[i].ID == id {
			return &r.Steps[i]
		}
	}
	return nil
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
