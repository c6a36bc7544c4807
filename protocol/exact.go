package protocol

import (
	"encoding/json"
	"reflect"
	"strings"
	"sync"
)

// decodeExact fills v (a pointer to a struct) from inst, the generic value
// jsonschema.UnmarshalJSON produced and the schema validated.
//
// encoding/json matches object keys case-insensitively (with Unicode simple
// folding: "ſ" is "s", "K" is "k") and the last match wins, so a member
// the schema treats as unknown and allows — "TEXT", "CODE", "OBJECTREF" —
// would overwrite the validated one. decodeExact first drops every member
// whose key is not exactly a field name of the target type, at every depth,
// so the struct holds exactly the values the schema checked. Unknown
// members are ignored, as the spec asks of unknown additive fields.
func decodeExact(inst any, v any) error {
	b, err := json.Marshal(prune(inst, reflect.TypeOf(v).Elem()))
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

var (
	eventType      = reflect.TypeFor[Event]()
	rawMessageType = reflect.TypeFor[json.RawMessage]()
)

// prune keeps the members of val that type t names exactly.
func prune(val any, t reflect.Type) any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == eventType {
		// Event decodes through its wire struct (Event.UnmarshalJSON).
		t = reflect.TypeFor[eventWire]()
	}
	if t == rawMessageType {
		return val
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := val.(map[string]any)
		if !ok {
			return val
		}
		fields := jsonFields(t)
		out := make(map[string]any, len(obj))
		for k, x := range obj {
			if ft, ok := fields[k]; ok {
				out[k] = prune(x, ft)
			}
		}
		return out
	case reflect.Slice, reflect.Array:
		arr, ok := val.([]any)
		if !ok {
			return val
		}
		out := make([]any, len(arr))
		for i, x := range arr {
			out[i] = prune(x, t.Elem())
		}
		return out
	case reflect.Map:
		obj, ok := val.(map[string]any)
		if !ok {
			return val
		}
		out := make(map[string]any, len(obj))
		for k, x := range obj {
			out[k] = prune(x, t.Elem())
		}
		return out
	}
	return val
}

var fieldCache sync.Map // reflect.Type -> map[string]reflect.Type

// jsonFields maps the JSON names of t's fields, as encoding/json spells
// them, to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	if f, ok := fieldCache.Load(t); ok {
		return f.(map[string]reflect.Type)
	}
	fields := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" && f.Tag.Get("json") == "-" {
			continue
		}
		if name == "" {
			if f.Anonymous && f.Type.Kind() == reflect.Struct {
				for n, ft := range jsonFields(f.Type) {
					fields[n] = ft
				}
				continue
			}
			name = f.Name
		}
		fields[name] = f.Type
	}
	fieldCache.Store(t, fields)
	return fields
}
