package envoyxds

import (
	"strconv"
	"strings"
)

// FieldError is one part of a PluginConfig that Translate refuses, located by its field path
// ("rateLimitPolicies[0].gatewayActions[1].configurations[0].hits_addend.number").
type FieldError struct {
	// Field is the path of the offending field; empty for the configuration as a whole.
	Field string
	// Detail says why Envoy cannot be configured to do what the field says.
	Detail string
}

// Error returns "envoyxds: field: detail".
func (e *FieldError) Error() string {
	if e.Field == "" {
		return "envoyxds: " + e.Detail
	}
	return "envoyxds: " + e.Field + ": " + e.Detail
}

// Errors is every refusal of one Translate call, policy by policy. Its Error method prints
// one refusal per line.
type Errors []*FieldError

// Error joins the refusals, one per line.
func (es Errors) Error() string {
	var b strings.Builder
	for i, e := range es {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Unwrap returns the refusals as a list, for errors.As and errors.Is.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// Caveat is a field of a PluginConfig for which Envoy treats some requests differently from
// package descriptor (a missing cost in metadata, route metadata, ...), although the
// translation is exact for the others. Translate reports every caveat; with Options.Strict
// it refuses them instead.
type Caveat struct {
	// Field is the path of the field concerned.
	Field string
	// Detail says which inputs Envoy treats differently, and how.
	Detail string
}

// String returns "field: detail".
func (c Caveat) String() string { return c.Field + ": " + c.Detail }

// path builds field paths.
type path string

func (p path) child(name string) path {
	if p == "" {
		return path(name)
	}
	return p + "." + path(name)
}

func (p path) index(i int) path { return p + "[" + path(strconv.Itoa(i)) + "]" }

// policyPath returns the field path of policy i.
func policyPath(i int) path { return path("rateLimitPolicies").index(i) }
