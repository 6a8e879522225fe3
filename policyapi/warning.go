package policyapi

import (
	"cmp"
	"strings"

	"github.com/rlpkit/rlpkit/policy"
)

// Warning is a problem of valid inputs that compiling survives but that most likely is a
// mistake: a policy or a route that ends up applying to no request, a policy not accepted.
// It prints as
//
//	policies.yaml:7: RateLimitPolicy default/toystore-rlp: spec.targetRef: HTTPRoute default/toystor not found (did you mean default/toystore?)
type Warning struct {
	// Source is where the field was read (see policy.Set.FieldSource); the zero value when
	// the object was not read from a file, or when the warning concerns the inputs as a
	// whole.
	Source policy.Source `json:"source,omitzero"`
	// Object is "Kind namespace/name"; empty when the warning concerns the inputs as a
	// whole.
	Object string `json:"object,omitempty"`
	// Field is the field path of the object the warning is about, e.g. "spec.targetRef";
	// empty for the object as a whole.
	Field string `json:"field,omitempty"`
	// Message says what is wrong and what to do.
	Message string `json:"message"`
}

// String formats the warning on one line: "file:line: Object: field.path: message", leaving
// out the parts that are empty.
func (w Warning) String() string {
	var parts []string
	if w.Source != (policy.Source{}) {
		parts = append(parts, w.Source.String())
	}
	for _, p := range []string{w.Object, w.Field, w.Message} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ": ")
}

// CompareWarnings orders warnings as their fields appear in the inputs (file, document,
// line), then by object, field and message, so that the order does not depend on the order
// of the objects in a Set.
func CompareWarnings(a, b Warning) int {
	return cmp.Or(
		strings.Compare(a.Source.File, b.Source.File),
		cmp.Compare(a.Source.Doc, b.Source.Doc),
		cmp.Compare(a.Source.Line, b.Source.Line),
		strings.Compare(a.Object, b.Object),
		strings.Compare(a.Field, b.Field),
		strings.Compare(a.Message, b.Message),
	)
}
