package protocol

import (
	"bytes"
	"slices"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Negotiate returns the usable modality set of a session: the card's
// accepted modalities intersected with the client's, in the card's order.
// Missing client capabilities mean the empty set.
func Negotiate(accepted, client []Modality) []Modality {
	var out []Modality
	for _, m := range accepted {
		if slices.Contains(client, m) && !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}

// CheckObservationJSON applies every receiver rule to a raw observation, in
// the order the spec asks for them: the schema (observation.schema), the
// negotiated modality set (observation.negotiation) and then the image rules
// (VerifyImage). It stops at the first failing stage, returning one *Error.
func CheckObservationJSON(raw []byte, negotiated []Modality) (*Observation, error) {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, newError(CodeObservationSchema, "observation is not JSON")
	}
	if err := schemaCheck(SchemaObservation, inst, CodeObservationSchema, "observation"); err != nil {
		return nil, err
	}
	obs, err := decodeBounded[Observation](inst, CodeObservationSchema, "observation")
	if err != nil {
		return nil, err
	}
	if err := CheckObservation(obs, negotiated); err != nil {
		return nil, err
	}
	return obs, nil
}

// CheckObservation applies the rules after the schema: negotiation, then the
// image rules. Producers call it before sending, receivers after the schema.
func CheckObservation(obs *Observation, negotiated []Modality) error {
	if obs.Object == nil && obs.Image == nil {
		return newError(CodeObservationSchema, "observation has neither object nor image")
	}
	for _, m := range obs.Modalities() {
		if !slices.Contains(negotiated, m) {
			return newError(CodeObservationNegotiation, "modality %s is not in this session's negotiated set %v", m, negotiated)
		}
	}
	if obs.Image != nil {
		if err := VerifyImage(obs.Image); err != nil {
			return err
		}
	}
	return nil
}

// schemaCheck validates inst against a schema and turns a failure into one
// *Error with the given code naming the failing fields (never their values).
func schemaCheck(schema string, inst any, code, what string) error {
	locs, err := validateSchema(schema, inst)
	if err != nil {
		return newError(code, "%s: schema unavailable: %v", what, err)
	}
	if len(locs) > 0 {
		return newError(code, "%s is not valid at %s", what, describeLocations(locs))
	}
	return nil
}
