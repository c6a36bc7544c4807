package protocol

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed schemas/*.schema.json
var schemaFS embed.FS

// Schema names, as published (the file names under schemas/).
const (
	SchemaCard        = "agentcall-card-0.1.schema.json"
	SchemaClient      = "agentcall-agui-ws-client-0.1.schema.json"
	SchemaEvents      = "agentcall-events-0.1.schema.json"
	SchemaObservation = "agentcall-physical-observation-0.1.schema.json"
	SchemaPassport    = "agentcall-object-passport-0.1.schema.json"
)

const schemaBase = "https://agentcall.smartycode.com/schemas/"

// SchemaNames lists the embedded schema documents.
func SchemaNames() []string {
	return []string{SchemaCard, SchemaClient, SchemaEvents, SchemaObservation, SchemaPassport}
}

// SchemaDocument returns the raw bytes of an embedded schema, for tools that
// publish or diff them.
func SchemaDocument(name string) ([]byte, error) {
	return schemaFS.ReadFile("schemas/" + name)
}

var (
	schemasOnce sync.Once
	schemas     map[string]*jsonschema.Schema
	schemasErr  error
)

// compiled compiles every embedded schema once. The documents are part of
// the binary, so a failure here is a build defect, reported by the tests.
func compiled() (map[string]*jsonschema.Schema, error) {
	schemasOnce.Do(func() {
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		// Formats are annotations by default in 2020-12; the contract relies on
		// date-time being enforced ("capturedAt is RFC 3339 data").
		c.AssertFormat()
		// Refuse to fetch anything: every $ref resolves inside the binary.
		c.UseLoader(noLoader{})
		for _, n := range SchemaNames() {
			b, err := SchemaDocument(n)
			if err != nil {
				schemasErr = err
				return
			}
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
			if err != nil {
				schemasErr = fmt.Errorf("protocol: schema %s: %w", n, err)
				return
			}
			if err := c.AddResource(schemaBase+n, doc); err != nil {
				schemasErr = fmt.Errorf("protocol: schema %s: %w", n, err)
				return
			}
		}
		schemas = map[string]*jsonschema.Schema{}
		for _, n := range SchemaNames() {
			s, err := c.Compile(schemaBase + n)
			if err != nil {
				schemasErr = fmt.Errorf("protocol: schema %s: %w", n, err)
				return
			}
			schemas[n] = s
		}
	})
	return schemas, schemasErr
}

type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("protocol: schema loader: refusing to load %q", url)
}

// validateSchema checks a decoded JSON value (from jsonschema.UnmarshalJSON)
// against the named schema. It returns the instance locations that failed,
// sorted, so that callers can tell which part of a message was wrong without
// ever quoting the message itself.
func validateSchema(name string, inst any) (locations []string, err error) {
	all, err := compiled()
	if err != nil {
		return nil, err
	}
	verr := all[name].Validate(inst)
	if verr == nil {
		return nil, nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(verr, &ve) {
		return nil, verr
	}
	seen := map[string]bool{}
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			loc := "/" + strings.Join(e.InstanceLocation, "/")
			if !seen[loc] {
				seen[loc] = true
				locations = append(locations, loc)
			}
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.Strings(locations)
	return locations, nil
}

// describeLocations renders failing locations for an error message: JSON
// pointers only (they name fields, not values), a few at most.
func describeLocations(locs []string) string {
	const max = 4
	if len(locs) > max {
		return strings.Join(locs[:max], ", ") + fmt.Sprintf(" and %d more", len(locs)-max)
	}
	return strings.Join(locs, ", ")
}
