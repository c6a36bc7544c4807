package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/agentcall/acbridge/station"
)

func init() {
	register(command{name: "devices", summary: "list the hardware acbridge can use: NFC readers, cameras, microphones, speakers", run: runDevices})
}

// deviceSections lists the sections; tests add a failing one.
var deviceSections = station.Sections

type sectionResult struct {
	Devices []station.Device `json:"devices"`
	Error   string           `json:"error,omitempty"`
}

// runDevices lists every section; a failing section is reported with its
// fix and makes the exit status 1, without hiding the others.
func runDevices(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "devices", "[--json]")
	asJSON := fs.Bool("json", false, "print JSON: one key per section")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	status := 0
	sections := deviceSections()
	results := make(map[string]sectionResult, len(sections))
	for _, s := range sections {
		devs, err := s.List(ctx)
		r := sectionResult{Devices: devs}
		if r.Devices == nil {
			r.Devices = []station.Device{}
		}
		if err != nil {
			r.Error = err.Error()
			status = 1
		}
		results[s.Name] = r
	}
	if *asJSON {
		return printJSON(e, "devices", results, status)
	}
	for i, s := range sections {
		if i > 0 {
			fmt.Fprintln(e.Stdout)
		}
		printSection(e.Stdout, s.Title, results[s.Name])
	}
	return status
}

func printSection(w io.Writer, title string, r sectionResult) {
	fmt.Fprintf(w, "%s:\n", title)
	if r.Error != "" {
		fmt.Fprintf(w, "  error: %s\n", r.Error)
		return
	}
	if len(r.Devices) == 0 {
		fmt.Fprintln(w, "  none")
		return
	}
	for _, d := range r.Devices {
		fmt.Fprintf(w, "  %s", d.Name)
		for _, k := range slices.Sorted(maps.Keys(d.Attrs)) {
			if k != "simulated" {
				fmt.Fprintf(w, "  %s=%v", k, d.Attrs[k])
			}
		}
		// A test device is software: a technician looking for the
		// camera or microphone must not take it for the hardware.
		if d.Attrs["simulated"] == true {
			fmt.Fprint(w, "  (simulated, not hardware)")
		}
		fmt.Fprintln(w)
	}
}
