package kuadrant

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"

	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policy/kuadrantv1"
	"github.com/rlpkit/rlpkit/wasmshim"
)

// authPolicies are the AuthPolicies of a set, each seen as a RateLimitPolicy of the same
// metadata, target and strategy (its shadow) whose limits are the AuthPolicy's rule keys
// (kuadrantv1.AuthPolicy.RuleKeys) and whose when is the AuthPolicy's, so that paths,
// strategies and folds apply to them as to RateLimitPolicies: the operator merges an
// AuthPolicy's rules by key with the same four strategies. Shadows fold apart from
// RateLimitPolicies and TokenRateLimitPolicies.
type authPolicies struct {
	// shadows are the shadows, in input order.
	shadows []*kuadrantv1.RateLimitPolicy
	// of maps a shadow to its AuthPolicy.
	of map[*kuadrantv1.RateLimitPolicy]*kuadrantv1.AuthPolicy
	// usable are the shadows that take part (the operator's accepted ones): valid, target
	// found.
	usable map[*kuadrantv1.RateLimitPolicy]bool
}

// newAuthPolicies returns the AuthPolicies of set and which of them take part.
func newAuthPolicies(set *policy.Set, t targets) *authPolicies {
	a := &authPolicies{of: map[*kuadrantv1.RateLimitPolicy]*kuadrantv1.AuthPolicy{}, usable: map[*kuadrantv1.RateLimitPolicy]bool{}}
	for _, p := range set.AuthPolicies {
		s := authShadow(p)
		a.shadows = append(a.shadows, s)
		a.of[s] = p
		if len(set.Problems(policy.AuthPolicyKey(p))) == 0 && t.found(s) {
			a.usable[s] = true
		}
	}
	return a
}

// authShadow returns the RateLimitPolicy standing for an AuthPolicy: its block in effect
// with one limit, without rates, per rule key, and its when.
func authShadow(p *kuadrantv1.AuthPolicy) *kuadrantv1.RateLimitPolicy {
	proper, strategy, override := p.Spec.Proper()
	block := kuadrantv1.RateLimitPolicySpecProper{When: proper.When, Limits: map[string]kuadrantv1.Limit{}}
	for _, key := range p.RuleKeys() {
		if key != kuadrantv1.AuthWhenRuleKey {
			block.Limits[key] = kuadrantv1.Limit{}
		}
	}
	spec := kuadrantv1.RateLimitPolicySpec{TargetRef: p.Spec.TargetRef}
	switch {
	case override:
		spec.Overrides = &kuadrantv1.MergeableRateLimitPolicySpec{Strategy: strategy, RateLimitPolicySpecProper: block}
	case p.Spec.Defaults != nil:
		spec.Defaults = &kuadrantv1.MergeableRateLimitPolicySpec{Strategy: strategy, RateLimitPolicySpecProper: block}
	default:
		spec.RateLimitPolicySpecProper = block
	}
	return &kuadrantv1.RateLimitPolicy{ObjectMeta: p.ObjectMeta, Spec: spec}
}

// effective returns the effective AuthPolicy of every path, in paths' order; a path with
// no AuthPolicy on it has none (no Policies, no Rules).
func (a *authPolicies) effective(paths []Path) []EffectivePolicy {
	var usable []*kuadrantv1.RateLimitPolicy
	for _, s := range a.shadows {
		if a.usable[s] {
			usable = append(usable, s)
		}
	}
	return effectiveAll(usable, paths)
}

// effectiveAll returns the effective policy of every path from policies, in paths' order.
func effectiveAll(policies []*kuadrantv1.RateLimitPolicy, paths []Path) []EffectivePolicy {
	out := make([]EffectivePolicy, len(paths))
	if len(policies) == 0 {
		// Every path has no policy: spare looking each up.
		for i, path := range paths {
			out[i] = EffectivePolicy{Path: path}
		}
		return out
	}
	idx := newPolicyIndex(policies)
	for i, path := range paths {
		out[i] = idx.effective(path)
	}
	return out
}

// AuthLocator names an AuthPolicy as wasm-shim's sources and the operator's statuses do:
// "authpolicy.kuadrant.io:ns/name".
func AuthLocator(namespace, name string) string {
	return "authpolicy.kuadrant.io:" + namespace + "/" + name
}

// AuthConfigName returns the name the operator gives the AuthConfig of a path, and the
// scope of the path's auth action: the hex SHA-256 of the path's ID.
func AuthConfigName(pathID string) string {
	sum := sha256.Sum256([]byte(pathID))
	return hex.EncodeToString(sum[:])
}

// authAction returns the auth action of a path with an effective AuthPolicy, as the
// operator writes it: the auth service, scoped to the path's AuthConfig, with the
// effective top-level when as its predicates and every policy a rule in effect came from
// as its sources (sorted). It passes the operator's check or it is dropped (nil),
// recording the first failure in e: the operator checks the auth action in the
// AuthPolicy's environment, where auth is declared.
func (c operatorChecks) authAction(e *EffectivePolicy) []wasmshim.Action {
	a := wasmshim.Action{Service: AuthServiceName, Scope: AuthConfigName(e.Path.ID)}
	for _, w := range e.Rules[WhenRule].When {
		a.Predicates = append(a.Predicates, w.Predicate)
	}
	for _, r := range e.Rules {
		a.Sources = append(a.Sources, AuthLocator(r.Source.Namespace, r.Source.Name))
	}
	slices.Sort(a.Sources)
	a.Sources = slices.Compact(a.Sources)
	for _, p := range a.Predicates {
		if err := c.check(p, true); err != nil {
			e.InvalidPredicate, e.InvalidSource = err, e.Rules[WhenRule].Source
			return nil
		}
	}
	return []wasmshim.Action{a}
}

// checkKey is one predicate checked with or without auth declared.
type checkKey struct {
	predicate string
	auth      bool
}

// check returns the operator's check of a predicate, withAuth telling whether an
// AuthPolicy is on the path, computing it once.
func (c operatorChecks) check(predicate string, withAuth bool) error {
	k := checkKey{predicate, withAuth}
	err, known := c[k]
	if !known {
		err = wasmshim.OperatorCheck(predicate, withAuth)
		c[k] = err
	}
	return err
}
