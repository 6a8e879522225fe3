package policytest

import (
	"maps"
	"slices"
	"strings"
)

// stepInput returns the Frontend input of a step's requests: the case's request with the
// step's headers over its own.
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
	return r.input()
}

// describeHeaders writes a step's headers for its explanation: " with x-tenant-id: globex".
func describeHeaders(s *Step) string {
	if len(s.Headers) == 0 {
		return ""
	}
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(s.Headers)) {
		parts = append(parts, name+": "+s.Headers[name])
	}
	return " with " + strings.Join(parts, ", ")
}
