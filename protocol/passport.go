package protocol

import (
	"bytes"
	"encoding/json"

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

// ParsePassport validates a raw passport against its schema.
func ParsePassport(raw []byte) (*Passport, error) {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, newError(CodePassportSchema, "passport is not JSON")
	}
	if err := schemaCheck(SchemaPassport, inst, CodePassportSchema, "passport"); err != nil {
		return nil, err
	}
	var p Passport
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, newError(CodePassportSchema, "passport does not fit its Go type")
	}
	return &p, nil
}
