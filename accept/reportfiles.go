package accept

import (
	"errors"
	"fmt"
	"io"
)

// WriteFiles writes the JSON report to jsonPath and the JUnit one to
// junitPath (WriteFile; an empty path is skipped) and prints
// "report: PATH" to out for each written. Both commands that run an
// acceptance (acbridge accept, acbridge-demo accept) write them this way.
func (r *Report) WriteFiles(out io.Writer, jsonPath, junitPath string) error {
	var errs []error
	for _, w := range []struct{ path, ext string }{{jsonPath, ".json"}, {junitPath, ".xml"}} {
		if w.path == "" {
			continue
		}
		written, err := r.WriteFile(w.path, w.ext)
		if err != nil {
			errs = append(errs, fmt.Errorf("writing the report: %w", err))
			continue
		}
		fmt.Fprintf(out, "report: %s\n", written)
	}
	return errors.Join(errs...)
}

// Status is the exit status of a command that ran the acceptance and
// wrote its reports (writeErr): 0 only when no step failed and the reports
// were written.
func (r *Report) Status(writeErr error) int {
	if !r.Accepted || writeErr != nil {
		return 1
	}
	return 0
}
