package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"

	"github.com/agentcall/acbridge/nfc"
)

func init() {
	register(command{name: "devices", summary: "list the hardware acbridge can use: NFC readers, cameras, microphones, speakers", run: runDevices})
	registerDeviceSection(deviceSection{order: 10, name: "nfc", title: "NFC readers (PC/SC)", list: listNFCReaders})
}

// deviceSection is one kind of hardware in "acbridge devices". Other areas
// (cameras, audio, buttons) add theirs with registerDeviceSection from an
// init function in their own file.
type deviceSection struct {
	order int    // position in the listing
	name  string // JSON key
	title string // heading in the text listing
	list  func(ctx context.Context) ([]device, error)
}

// device is one entry: a name plus facts shown as key=value.
type device struct {
	Name  string
	Attrs map[string]any
}

func (d device) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, len(d.Attrs)+1)
	maps.Copy(m, d.Attrs)
	m["name"] = d.Name
	return json.Marshal(m)
}

var deviceSections []deviceSection

func registerDeviceSection(s deviceSection) {
	for _, o := range deviceSections {
		if o.name == s.name {
			panic("acbridge: device section registered twice: " + s.name)
		}
	}
	deviceSections = append(deviceSections, s)
	sort.SliceStable(deviceSections, func(i, j int) bool { return deviceSections[i].order < deviceSections[j].order })
}

func listNFCReaders(ctx context.Context) ([]device, error) {
	infos, err := nfc.ListReaders(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]device, len(infos))
	for i, in := range infos {
		out[i] = device{Name: in.Name, Attrs: map[string]any{"contactless": in.Contactless, "tagPresent": in.TagPresent}}
	}
	return out, nil
}

type sectionResult struct {
	Devices []device `json:"devices"`
	Error   string   `json:"error,omitempty"`
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
	results := make(map[string]sectionResult, len(deviceSections))
	for _, s := range deviceSections {
		devs, err := s.list(ctx)
		r := sectionResult{Devices: devs}
		if r.Devices == nil {
			r.Devices = []device{}
		}
		if err != nil {
			r.Error = err.Error()
			status = 1
		}
		results[s.name] = r
	}
	if *asJSON {
		enc := json.NewEncoder(e.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(results); err != nil {
			fmt.Fprintf(e.Stderr, "acbridge devices: %v\n", err)
			return 1
		}
		return status
	}
	for i, s := range deviceSections {
		if i > 0 {
			fmt.Fprintln(e.Stdout)
		}
		printSection(e.Stdout, s.title, results[s.name])
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
			fmt.Fprintf(w, "  %s=%v", k, d.Attrs[k])
		}
		fmt.Fprintln(w)
	}
}
