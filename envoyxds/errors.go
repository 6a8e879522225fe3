package envoyxds

import "github.com/rlpkit/rlpkit/fielderr"

// pkg starts every error of this package. A part of a PluginConfig that Translate refuses
// is a *fielderr.Error with Pkg "envoyxds", located by its field path
// ("rateLimitPolicies[0].gatewayActions[1].configurations[0].hits_addend.number"), with
// Detail saying why Envoy cannot be configured to do what the field says: it prints as
// "envoyxds: FIELD: DETAIL". A refusal of an invalid PluginConfig wraps package
// descriptor's problem (Err). Every refusal of one Translate call is reported in one
// fielderr.List, policy by policy.
const pkg = "envoyxds"

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

// path builds field paths (fielderr.Path).
type path = fielderr.Path

// policyPath returns the field path of policy i.
func policyPath(i int) path { return path("rateLimitPolicies").Index(i) }
