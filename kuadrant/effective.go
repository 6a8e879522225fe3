package kuadrant

import (
	"cmp"
	"slices"

	"github.com/rlpkit/rlpkit/policy/kuadrantv1"
)

// EffectivePolicy is the policy in effect on one path: the rules left by folding the
// policies on the path with their strategies.
type EffectivePolicy struct {
	// Path is the path.
	Path Path
	// Policies are the policies on the path, least specific first (Gateway, listener,
	// route, rule; on one target oldest first, then by namespace/name).
	Policies []*kuadrantv1.RateLimitPolicy
	// Rules are the rules in effect, each with its source.
	Rules Rules
	// InvalidPredicate is the operator's check failing on the first predicate of the
	// path's action that does not pass it (cel-go's error), or nil. When set, the
	// operator drops the action: the path gets no action set, its limits are still
	// written to Limitador, and every policy on the path whose rules are in effect
	// somewhere is InvalidCelExpression.
	InvalidPredicate error
	// InvalidSource is the policy the failing predicate came from, when InvalidPredicate
	// is set.
	InvalidSource *kuadrantv1.RateLimitPolicy
}

// EffectiveLimit is one limit in effect on a path.
type EffectiveLimit struct {
	// Name is the limit's name.
	Name string
	// Limit is the limit as its source wrote it.
	Limit kuadrantv1.Limit
	// Predicates are the effective policy's top-level when followed by the limit's when.
	Predicates []string
	// Source is the policy the limit came from.
	Source *kuadrantv1.RateLimitPolicy
}

// Limits returns the limits in effect, by name, each with the effective top-level when
// prepended to its own.
func (e *EffectivePolicy) Limits() []EffectiveLimit {
	var top []string
	if w, ok := e.Rules[WhenRule]; ok {
		for _, p := range w.When {
			top = append(top, p.Predicate)
		}
	}
	var out []EffectiveLimit
	for name, r := range e.Rules {
		if name == WhenRule {
			continue
		}
		preds := slices.Clone(top)
		for _, p := range r.Limit.When {
			preds = append(preds, p.Predicate)
		}
		out = append(out, EffectiveLimit{Name: name, Limit: r.Limit, Predicates: preds, Source: r.Source})
	}
	slices.SortFunc(out, func(a, b EffectiveLimit) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// level is how specific a target is: Gateway, listener, route, rule.
func level(p *kuadrantv1.RateLimitPolicy) int {
	l := 0
	if p.Spec.TargetRef.Kind != "Gateway" {
		l = 2
	}
	if p.Spec.TargetRef.SectionName != nil {
		l++
	}
	return l
}

// onPath reports whether policy p targets an object of path.
func onPath(p *kuadrantv1.RateLimitPolicy, path *Path) bool {
	ref := p.Spec.TargetRef
	section := func(name string) bool { return ref.SectionName == nil || string(*ref.SectionName) == name }
	switch ref.Kind {
	case "Gateway":
		return p.Namespace == path.Gateway.Namespace && string(ref.Name) == path.Gateway.Name && section(string(path.Listener.Name))
	case "HTTPRoute", "GRPCRoute":
		return path.isRoute(string(ref.Kind), p.Namespace, string(ref.Name)) && section(path.RuleName)
	}
	return false
}

// olderFirst orders policies of one target: oldest first, then by namespace/name.
func olderFirst(a, b *kuadrantv1.RateLimitPolicy) int {
	return cmp.Or(a.CreationTimestamp.Compare(b.CreationTimestamp.Time), cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
}

// Effective returns the effective policy of a path from the policies given (those that do
// not target an object of the path are ignored): the policies on the path ordered least
// specific first, folded from the most specific outwards, acc = StrategyOf(p)(RulesOf(p),
// acc).
func Effective(path Path, policies []*kuadrantv1.RateLimitPolicy) EffectivePolicy {
	var on []*kuadrantv1.RateLimitPolicy
	for _, p := range policies {
		if onPath(p, &path) {
			on = append(on, p)
		}
	}
	return fold(path, on)
}

// policyIndex finds the policies that may be on a path: those targeting its Gateway or
// its route.
type policyIndex map[string][]*kuadrantv1.RateLimitPolicy

func newPolicyIndex(policies []*kuadrantv1.RateLimitPolicy) policyIndex {
	idx := policyIndex{}
	for _, p := range policies {
		k := string(p.Spec.TargetRef.Kind) + " " + p.Namespace + "/" + string(p.Spec.TargetRef.Name)
		idx[k] = append(idx[k], p)
	}
	return idx
}

// effective is Effective with the candidates taken from the index.
func (idx policyIndex) effective(path Path) EffectivePolicy {
	var on []*kuadrantv1.RateLimitPolicy
	for _, k := range []string{"Gateway " + path.Gateway.Namespace + "/" + path.Gateway.Name, path.RouteKind() + " " + path.RouteKey()} {
		for _, p := range idx[k] {
			if onPath(p, &path) {
				on = append(on, p)
			}
		}
	}
	return fold(path, on)
}

// fold orders the policies on a path and folds them.
func fold(path Path, on []*kuadrantv1.RateLimitPolicy) EffectivePolicy {
	slices.SortFunc(on, func(a, b *kuadrantv1.RateLimitPolicy) int {
		return cmp.Or(cmp.Compare(level(a), level(b)), olderFirst(a, b))
	})
	var acc Rules
	for i := len(on) - 1; i >= 0; i-- {
		acc = StrategyOf(on[i])(RulesOf(on[i]), acc)
	}
	return EffectivePolicy{Path: path, Policies: on, Rules: acc}
}
