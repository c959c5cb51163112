package mcp

import (
	"fmt"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// schemaFor infers T's schema, as the SDK would, and writes its nullable
// fields portably: the inference gives a Go slice or pointer the type
// ["null", T], which clients that map schemas onto a one-type dialect
// (Gemini's function declarations) reject. A field that may be absent
// (omitempty) is never null on the wire and gets its type alone; a
// required one that may hold null gets anyOf null or its type.
func schemaFor[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("mcp: schema of %T: %v", *new(T), err))
	}
	portable(s, true)
	return s
}

func portable(s *jsonschema.Schema, required bool) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && slices.Contains(s.Types, "null") {
		t := s.Types[0]
		if t == "null" {
			t = s.Types[1]
		}
		s.Types = nil
		if required {
			inner := *s
			inner.Type = t
			*s = jsonschema.Schema{Description: inner.Description, AnyOf: []*jsonschema.Schema{{Type: "null"}, &inner}}
			inner.Description = ""
			portable(&inner, false)
			return
		}
		s.Type = t
	}
	for name, p := range s.Properties {
		portable(p, slices.Contains(s.Required, name))
	}
	portable(s.Items, false)
}
