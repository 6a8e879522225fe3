package kuadrant

import (
	"maps"

	"github.com/rlpkit/rlpkit/policy/kuadrantv1"
)

// Rule is one mergeable rule of a policy: a named limit, or the policy's top-level when
// (the rule named WhenRule). It keeps the policy it came from.
type Rule struct {
	// Limit is the limit, for a limit rule.
	Limit kuadrantv1.Limit
	// When are the predicates, for the WhenRule.
	When []kuadrantv1.WhenPredicate
	// Source is the policy the rule came from.
	Source *kuadrantv1.RateLimitPolicy
}

// WhenRule is the name of the rule holding a policy's top-level when. Limit names are not
// empty, so it names no limit.
const WhenRule = ""

// Rules is a set of rules by name.
type Rules map[string]Rule

// Strategy merges the rules of a policy (source) into those merged so far from more
// specific policies (target), and returns the result. Neither argument is modified.
type Strategy func(source, target Rules) Rules

// AtomicDefaults keeps target when it has any rule, else takes source: the most specific
// defaults win.
func AtomicDefaults(source, target Rules) Rules {
	if len(target) > 0 {
		return target
	}
	return source
}

// AtomicOverrides takes source whole: the least specific overrides win.
func AtomicOverrides(source, target Rules) Rules { return source }

// MergeDefaults takes target's rules plus source's rules of names target lacks.
func MergeDefaults(source, target Rules) Rules {
	out := maps.Clone(target)
	if out == nil {
		out = Rules{}
	}
	for name, r := range source {
		if _, ok := out[name]; !ok {
			out[name] = r
		}
	}
	return out
}

// MergeOverrides takes source's rules plus target's rules of names source lacks.
func MergeOverrides(source, target Rules) Rules { return MergeDefaults(target, source) }

// StrategyOf returns the strategy of a policy's block in effect.
func StrategyOf(p *kuadrantv1.RateLimitPolicy) Strategy {
	_, strategy, override := p.Spec.Proper()
	switch {
	case override && strategy == kuadrantv1.StrategyMerge:
		return MergeOverrides
	case override:
		return AtomicOverrides
	case strategy == kuadrantv1.StrategyMerge:
		return MergeDefaults
	}
	return AtomicDefaults
}

// RulesOf returns a policy's rules: its limits by name and, when it has a top-level when,
// the WhenRule.
func RulesOf(p *kuadrantv1.RateLimitPolicy) Rules {
	proper, _, _ := p.Spec.Proper()
	out := Rules{}
	if len(proper.When) > 0 {
		out[WhenRule] = Rule{When: proper.When, Source: p}
	}
	for name, l := range proper.Limits {
		out[name] = Rule{Limit: l, Source: p}
	}
	return out
}
