package kuadrant

import (
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policy/kuadrantv1"
	"github.com/rlpkit/rlpkit/policy/kuadrantv1alpha1"
	"github.com/rlpkit/rlpkit/wasmshim"
)

// The hits_addend of a TokenRateLimitPolicy's two actions, as kuadrant-operator writes
// them: the check charges nothing, the report charges the response's total tokens.
const (
	TokenCheckHits  = "0"
	TokenReportHits = `responseBodyJSON("/usage/total_tokens")`
)

// tokenPolicies are the TokenRateLimitPolicies of a set, each seen as a kuadrant.io/v1
// RateLimitPolicy of the same metadata and body (its shadow), so that paths, strategies
// and folds apply to them as they apply to RateLimitPolicies. Shadows are folded apart
// from RateLimitPolicies: the two kinds never merge.
type tokenPolicies struct {
	// shadows are the shadows, in input order.
	shadows []*kuadrantv1.RateLimitPolicy
	// of maps a shadow to its policy.
	of map[*kuadrantv1.RateLimitPolicy]*kuadrantv1alpha1.TokenRateLimitPolicy
	// usable are the shadows that take part: valid, target found.
	usable map[*kuadrantv1.RateLimitPolicy]bool
}

// newTokenPolicies returns the TokenRateLimitPolicies of set and which of them take part,
// by the rules that decide it for RateLimitPolicies.
func newTokenPolicies(set *policy.Set, targets targets) *tokenPolicies {
	tp := &tokenPolicies{of: map[*kuadrantv1.RateLimitPolicy]*kuadrantv1alpha1.TokenRateLimitPolicy{}, usable: map[*kuadrantv1.RateLimitPolicy]bool{}}
	for _, t := range set.TokenPolicies {
		s := &kuadrantv1.RateLimitPolicy{ObjectMeta: t.ObjectMeta, Spec: t.Spec.RateLimitSpec()}
		tp.shadows = append(tp.shadows, s)
		tp.of[s] = t
		if len(set.Problems(policy.TokenPolicyKey(t))) == 0 && targets.found(s) {
			tp.usable[s] = true
		}
	}
	return tp
}

// effective returns the effective TokenRateLimitPolicy of every path, in paths' order. A
// GRPCRoute's path has none: the operator computes TokenRateLimitPolicies on HTTPRoute
// rules only, so a Gateway's does not reach GRPCRoutes.
func (tp *tokenPolicies) effective(paths []Path) []EffectivePolicy {
	var usable []*kuadrantv1.RateLimitPolicy
	for _, s := range tp.shadows {
		if tp.usable[s] {
			usable = append(usable, s)
		}
	}
	// The operator's TokenRateLimitPolicies reach HTTPRoutes only: a GRPCRoute's path has
	// no effective token policy.
	out := effectiveAll(usable, paths)
	for i := range out {
		if paths[i].GRPCRoute != nil {
			out[i] = EffectivePolicy{Path: paths[i]}
		}
	}
	return out
}

// TokenLimitID returns the identifier of a TokenRateLimitPolicy's limit in descriptors and
// Limitador's conditions: "tokenlimit." + the name with every character not in
// [A-Za-z0-9_] replaced by "_" + "__" + the first 8 hex digits of
// sha256("policyNs/policyName/limitName"), as LimitID with another prefix.
func TokenLimitID(p *kuadrantv1alpha1.TokenRateLimitPolicy, name string) string {
	return tokenLimitID(&kuadrantv1.RateLimitPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: p.Name}}, name)
}

// tokenLimitID is TokenLimitID of a shadow.
func tokenLimitID(s *kuadrantv1.RateLimitPolicy, name string) string {
	return "tokenlimit." + strings.TrimPrefix(LimitID(s, name), "limit.")
}

// TokenLocator names a TokenRateLimitPolicy as wasm-shim's sources and the operator's
// statuses do: "tokenratelimitpolicy.kuadrant.io:ns/name".
func TokenLocator(namespace, name string) string {
	return "tokenratelimitpolicy.kuadrant.io:" + namespace + "/" + name
}

// tokenLimitActions returns the actions of an effective TokenRateLimitPolicy's limits
// (sorted by name): per limit a ratelimit-check-service action charging nothing, then a
// ratelimit-report-service action charging the response's total tokens, each with one
// conditionalData block of the top-level and the limit's predicates, the limit's id and
// its counters.
func tokenLimitActions(limits []EffectiveLimit, scope string) []wasmshim.Action {
	var out []wasmshim.Action
	for _, l := range limits {
		data := []wasmshim.DataItem{{Expression: &wasmshim.ExpressionData{Key: tokenLimitID(l.Source, l.Name), Value: "1"}}}
		for _, c := range l.Limit.Counters {
			data = append(data, wasmshim.DataItem{Expression: &wasmshim.ExpressionData{Key: c.Expression, Value: c.Expression}})
		}
		sources := []string{TokenLocator(l.Source.Namespace, l.Source.Name)}
		for _, svc := range []struct{ name, hits string }{{RateLimitCheckServiceName, TokenCheckHits}, {RateLimitReportServiceName, TokenReportHits}} {
			d := append(append([]wasmshim.DataItem(nil), data...), wasmshim.DataItem{Expression: &wasmshim.ExpressionData{Key: wasmshim.KeyHitsAddend, Value: svc.hits}})
			out = append(out, wasmshim.Action{Service: svc.name, Scope: scope, Sources: sources, ConditionalData: []wasmshim.ConditionalData{{Predicates: l.Predicates, Data: d}}})
		}
	}
	return out
}

// tokenActions returns the actions of a path's token limits that pass the operator's
// check of their predicates. As the operator checks each action apart, a token limit
// whose predicate fails loses its two actions and no other; te records the first failure
// and the policy its predicate came from (the top-level when's or the limit's).
func (c operatorChecks) tokenActions(te *EffectivePolicy, limits []EffectiveLimit, scope string, withAuth bool) []wasmshim.Action {
	top := te.Rules[WhenRule]
	var out []wasmshim.Action
	for _, l := range limits {
		var failed error
		for i, p := range l.Predicates {
			err := c.check(p, withAuth)
			if err == nil {
				continue
			}
			failed = err
			if te.InvalidPredicate == nil {
				te.InvalidPredicate, te.InvalidSource = err, top.Source
				if i >= len(top.When) {
					te.InvalidSource = l.Source
				}
			}
			break
		}
		if failed == nil {
			out = append(out, tokenLimitActions([]EffectiveLimit{l}, scope)...)
		}
	}
	return out
}

// orderActions returns a path's actions in the operator's order: the auth action first,
// then the RateLimitPolicy action and then the TokenRateLimitPolicy actions, each group
// put before everything so far unless it reads auth.* (then after). The operator merges
// adjacent actions of one service and scope other than auth; no two adjacent actions here
// share one, so that changes nothing.
func orderActions(auth, rateLimit, tokens []wasmshim.Action) []wasmshim.Action {
	out := slices.Clone(auth)
	for _, actions := range [][]wasmshim.Action{rateLimit, tokens} {
		if hasAuthAccess(actions) {
			out = append(out, actions...)
		} else {
			out = append(slices.Clone(actions), out...)
		}
	}
	return out
}

// hasAuthAccess reports whether a predicate or a data expression of the actions holds
// "auth.", the operator's test for placing them after the auth action.
func hasAuthAccess(actions []wasmshim.Action) bool {
	for _, a := range actions {
		for _, cd := range a.ConditionalData {
			for _, p := range cd.Predicates {
				if strings.Contains(p, "auth.") {
					return true
				}
			}
			for _, d := range cd.Data {
				if d.Expression != nil && strings.Contains(d.Expression.Value, "auth.") {
					return true
				}
			}
		}
	}
	return false
}
