package policytest

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// stepInput returns the Frontend input of a step's requests: the case's request with the
// step's headers and auth.* attributes over its own.
func (c *Case) stepInput(s *Step) *Input {
	r := c.Request
	r.Headers = maps.Clone(r.Headers)
	if r.Headers == nil {
		r.Headers = map[string]string{}
	}
	for name, value := range s.Headers {
		for old := range r.Headers {
			if strings.EqualFold(old, name) {
				delete(r.Headers, old)
			}
		}
		r.Headers[name] = value
	}
	if len(s.Attributes) > 0 {
		r.Attributes = maps.Clone(r.Attributes)
		if r.Attributes == nil {
			r.Attributes = map[string]any{}
		}
		maps.Copy(r.Attributes, s.Attributes)
	}
	return r.input()
}

// describeHeaders writes a step's headers and attributes for its explanation: " with
// x-tenant-id: globex".
func describeHeaders(s *Step) string {
	if len(s.Headers) == 0 && len(s.Attributes) == 0 {
		return ""
	}
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(s.Headers)) {
		parts = append(parts, name+": "+s.Headers[name])
	}
	for _, name := range slices.Sorted(maps.Keys(s.Attributes)) {
		parts = append(parts, fmt.Sprintf("%s: %v", name, s.Attributes[name]))
	}
	return " with " + strings.Join(parts, ", ")
}

// ownRequest reports whether a step's requests differ from the case's: headers or auth.*
// attributes of their own.
func (s *Step) ownRequest() bool { return len(s.Headers) > 0 || len(s.Attributes) > 0 }
