package kuadrantv1

import (
	"maps"
	"slices"
)

// The prefixes of an AuthPolicy's rule keys (RuleKeys), as kuadrant-operator names the
// rules its merge strategies merge: "authentication#<name>" and so on, one key for each
// of the two deny responses, and WhenRuleKey for the top-level when.
const (
	AuthRulePatterns        = "patterns#"
	AuthRuleAuthentication  = "authentication#"
	AuthRuleMetadata        = "metadata#"
	AuthRuleAuthorization   = "authorization#"
	AuthRuleCallbacks       = "callbacks#"
	AuthRuleUnauthenticated = "response.unauthenticated#"
	AuthRuleUnauthorized    = "response.unauthorized#"
	AuthRuleSuccessHeaders  = "response.success.headers#"
	AuthRuleSuccessFilters  = "response.success.metadata#"
	AuthWhenRuleKey         = "conditions#"
)

// Proper returns the block of an AuthPolicy in effect (explicit defaults, overrides, or
// the top level), its strategy (atomic when unset) and whether it overrides.
func (s *AuthPolicySpec) Proper() (proper *AuthPolicySpecProper, strategy string, override bool) {
	switch {
	case s.Defaults != nil:
		return &s.Defaults.AuthPolicySpecProper, strategyOf(s.Defaults.Strategy), false
	case s.Overrides != nil:
		return &s.Overrides.AuthPolicySpecProper, strategyOf(s.Overrides.Strategy), true
	}
	return &s.AuthPolicySpecProper, StrategyAtomic, false
}

// RuleKeys returns the keys of the rules of an AuthPolicy's block in effect, sorted: one per
// named pattern, authentication, metadata, authorization and callbacks entry and success
// header and filter, one per deny response set, and AuthWhenRuleKey when it has a when.
// Merge strategies keep or replace rules by these keys.
func (p *AuthPolicy) RuleKeys() []string {
	proper, _, _ := p.Spec.Proper()
	keys := named(AuthRulePatterns, proper.NamedPatterns)
	if len(proper.When) > 0 {
		keys = append(keys, AuthWhenRuleKey)
	}
	r := proper.AuthScheme
	for _, g := range []struct{ prefix, field string }{
		{AuthRuleAuthentication, "authentication"}, {AuthRuleMetadata, "metadata"},
		{AuthRuleAuthorization, "authorization"}, {AuthRuleCallbacks, "callbacks"},
	} {
		keys = append(keys, named(g.prefix, asMap(r[g.field]))...)
	}
	resp := asMap(r["response"])
	if resp["unauthenticated"] != nil {
		keys = append(keys, AuthRuleUnauthenticated)
	}
	if resp["unauthorized"] != nil {
		keys = append(keys, AuthRuleUnauthorized)
	}
	success := asMap(resp["success"])
	keys = append(keys, named(AuthRuleSuccessHeaders, asMap(success["headers"]))...)
	keys = append(keys, named(AuthRuleSuccessFilters, asMap(success["filters"]))...)
	slices.Sort(keys)
	return keys
}

// hasAuthRules reports whether a block holds a rule the CRD counts: an entry of
// authentication, metadata, authorization or callbacks, a deny response, or a success
// header or filter (patterns and when are not rules).
func (s *AuthPolicySpecProper) hasAuthRules() bool {
	r := s.AuthScheme
	for _, f := range []string{"authentication", "metadata", "authorization", "callbacks"} {
		if len(asMap(r[f])) > 0 {
			return true
		}
	}
	resp := asMap(r["response"])
	success := asMap(resp["success"])
	return resp["unauthenticated"] != nil || resp["unauthorized"] != nil || len(asMap(success["headers"])) > 0 || len(asMap(success["filters"])) > 0
}

// named returns prefix+name for every name of m.
func named(prefix string, m map[string]any) []string {
	out := make([]string, 0, len(m))
	for _, name := range slices.Sorted(maps.Keys(m)) {
		out = append(out, prefix+name)
	}
	return out
}

// asMap returns v as an object, nil when it is not one.
func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}
