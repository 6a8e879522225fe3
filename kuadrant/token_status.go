package kuadrant

import (
	"cmp"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policy/kuadrantv1"
	"github.com/rlpkit/rlpkit/policyapi"
)

// topLevelRuleKey is how kuadrant-operator names a policy's top-level when among its rules
// (WhenRule here) in a TokenRateLimitPolicy's status.
const topLevelRuleKey = "###_TOP_LEVEL_PREDICATES_###"

// statuses returns the status of every TokenRateLimitPolicy (Kind
// KindTokenRateLimitPolicy), sorted by name, from the effective TokenRateLimitPolicies of
// the paths.
func (tp *tokenPolicies) statuses(set *policy.Set, targets targets, effective []EffectivePolicy, now metav1.Time) []PolicyStatus {
	on := validPaths(effective)
	var out []PolicyStatus
	for _, s := range tp.shadows {
		t := tp.of[s]
		ps := PolicyStatus{Name: t.Namespace + "/" + t.Name, Kind: policy.KindTokenRateLimitPolicy}
		ps.Conditions = policyConditions("TokenRateLimitPolicy", t.Generation, now, set.Problems(policy.TokenPolicyKey(t)), targets.found(s), t.Spec.TargetRef,
			func() (bool, string, string) { return tokenEnforcement(s, on[s]) })
		out = append(out, ps)
	}
	slices.SortFunc(out, func(a, b PolicyStatus) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// tokenEnforcement tells whether the rules of a TokenRateLimitPolicy (its shadow p) are in
// effect on the valid paths through its target, as kuadrant-operator v1.5.2 words it:
// unlike a RateLimitPolicy, one whose rules are partly overridden is not Enforced (reason
// Unknown, naming each overridden rule and the first policy that took its place), and a
// rule an atomic policy replaced names every policy on the path, itself included. Only
// then comes the operator's check of predicates on the paths it is on
// (InvalidCelExpression, quoting every failure in path order).
func tokenEnforcement(p *kuadrantv1.RateLimitPolicy, paths []*EffectivePolicy) (bool, string, string) {
	rules := RulesOf(p)
	overriding := map[string][]*kuadrantv1.RateLimitPolicy{} // rule name -> the policies in its place
	affected := false
	var issues []string
	for _, e := range paths {
		if e.InvalidPredicate != nil {
			issues = append(issues, e.InvalidPredicate.Error())
		}
		for name := range rules {
			r, ok := e.Rules[name]
			switch {
			case ok && r.Source == p:
				affected = true
			case ok:
				overriding[name] = append(overriding[name], r.Source)
			default:
				overriding[name] = append(overriding[name], e.Policies...)
			}
		}
	}
	names := make([]string, 0, len(overriding))
	for name := range overriding {
		names = append(names, name)
	}
	slices.Sort(names)
	switch {
	case !affected && len(overriding) == 0:
		return false, ReasonUnknown, "TokenRateLimitPolicy is not in the path to any existing routes"
	case !affected:
		var by []string
		for _, name := range names {
			for _, q := range overriding[name] {
				if k := q.Namespace + "/" + q.Name; !slices.Contains(by, k) {
					by = append(by, k)
				}
			}
		}
		return false, ReasonOverridden, "TokenRateLimitPolicy is overridden by [" + strings.Join(by, " ") + "]"
	case len(overriding) > 0:
		rs := make([]string, len(names))
		for i, name := range names {
			key := name
			if name == WhenRule {
				key = topLevelRuleKey
			}
			q := overriding[name][0]
			rs[i] = key + " by " + TokenLocator(q.Namespace, q.Name)
		}
		return false, ReasonUnknown, "TokenRateLimitPolicy has encountered some issues: policy rule(s) overridden: " + strings.Join(rs, ", ")
	case len(issues) > 0:
		return false, ReasonInvalidCelExpression, "validation issues: [" + strings.Join(issues, " ") + "]"
	}
	return true, ReasonEnforced, "TokenRateLimitPolicy has been successfully enforced"
}

// tokenWarnings returns a warning for every predicate rlpkit's stricter check rejects and
// every condition of a TokenRateLimitPolicy's status that is not True, at its line, as
// Warnings does for RateLimitPolicies, and one
// for a top-level when beside defaults or overrides, which the CRD accepts and
// kuadrant-operator ignores.
func tokenWarnings(set *policy.Set, res *Result) []policyapi.Warning {
	tp := newTokenPolicies(set, newTargets(set))
	byName := map[string]*kuadrantv1.RateLimitPolicy{}
	for _, s := range tp.shadows {
		byName[s.Namespace+"/"+s.Name] = s
	}
	var out []policyapi.Warning
	for _, st := range res.TokenPolicies {
		s := byName[st.Name]
		key := policy.TokenPolicyKey(tp.of[s])
		for _, w := range predicateWarnings(set, s) {
			w.Source, _ = set.FieldSource(key, w.Field)
			w.Object = policy.KindTokenRateLimitPolicy + " " + st.Name
			out = append(out, w)
		}
		for _, c := range st.Conditions {
			if c.Status == metav1.ConditionTrue {
				continue
			}
			field, msg := "spec", c.Reason+": "+c.Message
			if c.Reason == ReasonTargetNotFound {
				field = "spec.targetRef"
				msg += targetHint(set, s)
			}
			if c.Reason == ReasonInvalidCelExpression && strings.Contains(c.Message, "undeclared reference to 'auth'") {
				msg += "; auth.* is set by an AuthPolicy on the same path, and no valid AuthPolicy among the inputs is on this one, so a predicate reading it never passes here"
			}
			src, _ := set.FieldSource(key, field)
			out = append(out, policyapi.Warning{Source: src, Object: policy.KindTokenRateLimitPolicy + " " + st.Name, Field: field, Message: msg})
		}
	}
	for _, t := range set.TokenPolicies {
		if len(t.Spec.When) > 0 && (t.Spec.Defaults != nil || t.Spec.Overrides != nil) {
			src, _ := set.FieldSource(policy.TokenPolicyKey(t), "spec.when")
			out = append(out, policyapi.Warning{Source: src, Object: policy.KindTokenRateLimitPolicy + " " + t.Namespace + "/" + t.Name, Field: "spec.when",
				Message: "ignored: beside spec.defaults or spec.overrides, kuadrant-operator reads only the when of that block; move the predicates there"})
		}
	}
	return out
}
