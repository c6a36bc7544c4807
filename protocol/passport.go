package protocol

import (
	"bytes"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Passport is the optional object passport: a bounded reference projection,
// not private history or credentials.
type Passport struct {
	SchemaVersion string         `json:"schemaVersion"`
	ObjectRef     string         `json:"objectRef"`
	Label         string         `json:"label"`
	Description   string         `json:"description,omitempty"`
	References    []string       `json:"references,omitempty"`
	Facts         []PassportFact `json:"facts,omitempty"`
	Actions       []ActionRecipe `json:"actions,omitempty"`
	UpdatedAt     string         `json:"updatedAt,omitempty"`
}

// PassportFact is a bounded name/value fact; facts are data, never instructions.
type PassportFact struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// ActionRecipe names an action; every recipe requires confirmation.
type ActionRecipe struct {
	ID                   string `json:"id"`
	Title                string `json:"title"`
	RequiresConfirmation bool   `json:"requiresConfirmation"`
}

// CodePassportSchema rejects a passport that is not valid against its schema.
const CodePassportSchema = "passport.schema"

// MaxPassportBytes is acbridge's bound on a raw passport, checked before
// parsing: a passport travels inside one frame, so it can never be larger
// (the schema's field bounds allow about 80,000 characters).
const MaxPassportBytes = MaxFrameBytes

// ParsePassport validates a raw passport: at most MaxPassportBytes, then the
// schema, which refuses members outside the reference projection (a
// passport is "not private history or credentials", so "history" or
// "credentials" are not ignored but refused).
func ParsePassport(raw []byte) (*Passport, error) {
	if len(raw) > MaxPassportBytes {
		return nil, newError(CodePassportSchema, "passport is %d bytes; the limit is %d", len(raw), MaxPassportBytes)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, newError(CodePassportSchema, "passport is not JSON")
	}
	if err := schemaCheck(SchemaPassport, inst, CodePassportSchema, "passport"); err != nil {
		return nil, err
	}
	return decodeBounded[Passport](inst, CodePassportSchema, "passport")
}
