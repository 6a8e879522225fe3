package merge

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/policy"
)

// SectionName names a section of a RateLimitPolicy.
type SectionName string

// The sections of a RateLimitPolicy.
const (
	Override SectionName = "override"
	Default  SectionName = "default"
)

// Section is one section of one policy taking part in a merge.
type Section struct {
	// Policy is the policy the section belongs to.
	Policy *policy.RateLimitPolicy
	// Name is Override or Default.
	Name SectionName
	// Config is the section's configuration.
	Config *policy.RateLimitPolicyConfig
}

// Origin says where a piece of effective configuration came from: a policy, its section,
// and the index in that section's gatewayActions or rateLimits.
type Origin struct {
	// Policy is "namespace/name" of the policy.
	Policy string `json:"policy"`
	// Section is Override or Default.
	Section SectionName `json:"section"`
	// Index is the index in the section's list.
	Index int `json:"index"`
}

// path returns "ns/name spec.default.rateLimits[0]"-style text, with the list named by
// what the origin is of (list is "gatewayActions" or "rateLimits").
func (o Origin) path(list string) string {
	return fmt.Sprintf("%s spec.%s.%s[%d]", o.Policy, o.Section, list, o.Index)
}

// EffectiveAction is a gateway action of a merged configuration and its origin.
type EffectiveAction struct {
	// Action is the gateway action.
	Action descriptor.GatewayAction
	// Origin is where it came from.
	Origin Origin
}

// EffectiveLimit is a rate limit of a merged configuration and its origin.
type EffectiveLimit struct {
	// Limit is the rate limit.
	Limit policy.RateLimitSpec
	// Origin is where it came from.
	Origin Origin
}

// Replaced is a rate limit a merge left out, and the limit that took its place.
type Replaced struct {
	// Limit is the limit left out.
	Limit Origin
	// By is the limit that took its place.
	By Origin
}

// ActionStrategy merges the gateway actions of sections given in precedence order, highest
// first.
type ActionStrategy func(sections []Section) []EffectiveAction

// LimitStrategy merges the rate limits of sections given in precedence order, highest first,
// and says which limits it replaced with which.
type LimitStrategy func(sections []Section) (effective []EffectiveLimit, replaced []Replaced)

var (
	_ ActionStrategy = AggregateActions
	_ LimitStrategy  = PatchLimits
)

// Precedence orders the sections of the policies of a hierarchy, given from the top level
// (a Gateway's policy) to the bottom (an HTTPRoute's), highest precedence first: overrides
// from the top down, then defaults from the bottom up. For Gateway and HTTPRoute that is
// Gateway override > HTTPRoute override > HTTPRoute default > Gateway default. Nil policies
// and absent sections are skipped, so a level (a listener's, say) can be added by passing it.
func Precedence(levels ...*policy.RateLimitPolicy) []Section {
	var out []Section
	for _, p := range levels {
		if p != nil && p.Spec.Override != nil {
			out = append(out, Section{Policy: p, Name: Override, Config: p.Spec.Override})
		}
	}
	for i := len(levels) - 1; i >= 0; i-- {
		if p := levels[i]; p != nil && p.Spec.Default != nil {
			out = append(out, Section{Policy: p, Name: Default, Config: p.Spec.Default})
		}
	}
	return out
}

// AggregateActions keeps every section's gateway actions, in precedence then declaration
// order, dropping an action equivalent to one already kept (descriptor.GatewayAction
// Equivalent: equal once defaults are applied and empty lists are absent, so "rules: []" and
// no rules, or "expect_match: true" and none, are one action), the first one written being
// kept: adding actions only ever adds descriptors, so more counters apply and none is
// disabled, and no descriptor is sent twice to be counted twice.
func AggregateActions(sections []Section) []EffectiveAction {
	var out []EffectiveAction
	var kept []descriptor.GatewayAction // canonical forms of out
	for _, s := range sections {
		for i, a := range s.Config.GatewayActions {
			c := a.Canonical()
			if slices.ContainsFunc(kept, func(k descriptor.GatewayAction) bool { return reflect.DeepEqual(k, c) }) {
				continue
			}
			kept = append(kept, c)
			out = append(out, EffectiveAction{Action: a, Origin: origin(s, i)})
		}
	}
	return out
}

// PatchLimits patches rate limits by policy.RateLimitSpec.PatchKey (seconds, conditions as a
// set and variables as a set, in package limit/limitador's canonical form, so that spellings of one
// limit patch each other): of limits with equal keys the one of the highest section wins; all
// others are kept, in precedence then declaration order. Limits it keeps therefore never
// share an identity in the rate-limit service.
func PatchLimits(sections []Section) ([]EffectiveLimit, []Replaced) {
	var out []EffectiveLimit
	var replaced []Replaced
	winner := map[string]Origin{}
	for _, s := range sections {
		for i := range s.Config.RateLimits {
			rl := s.Config.RateLimits[i]
			k := rl.PatchKey()
			if by, ok := winner[k]; ok {
				replaced = append(replaced, Replaced{Limit: origin(s, i), By: by})
				continue
			}
			winner[k] = origin(s, i)
			out = append(out, EffectiveLimit{Limit: rl, Origin: origin(s, i)})
		}
	}
	return out, replaced
}

func origin(s Section, i int) Origin {
	return Origin{Policy: s.Policy.Namespace + "/" + s.Policy.Name, Section: s.Name, Index: i}
}
