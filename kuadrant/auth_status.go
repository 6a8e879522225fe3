package kuadrant

import (
	"cmp"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policy/kuadrantv1"
	"github.com/rlpkit/rlpkit/policyapi"
)

// statuses returns the status of every AuthPolicy (Kind policy.KindAuthPolicy), sorted by
// name, from the effective AuthPolicies of the paths.
func (a *authPolicies) statuses(set *policy.Set, targets targets, effective []EffectivePolicy, now metav1.Time) []PolicyStatus {
	on := validPaths(effective)
	var out []PolicyStatus
	for _, s := range a.shadows {
		p := a.of[s]
		ps := PolicyStatus{Name: p.Namespace + "/" + p.Name, Kind: policy.KindAuthPolicy}
		ps.Conditions = policyConditions(kuadrantv1.AuthPolicyKind, p.Generation, now, set.Problems(policy.AuthPolicyKey(p)), targets.found(s), p.Spec.TargetRef,
			func() (bool, string, string) { return authEnforcement(s, on[s]) })
		out = append(out, ps)
	}
	slices.SortFunc(out, func(a, b PolicyStatus) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// authEnforcement tells whether the rules of an AuthPolicy (its shadow p) are in effect on
// the valid paths through its target, as kuadrant-operator v1.5.2 words it: none in
// effect is Unknown (on no path) or Overridden, naming every policy in place of a rule
// (for a rule an atomic policy replaced, every source of the path's effective policy);
// some in effect is InvalidCelExpression when the operator's check of the auth action
// failed on a path it is on, else Enforced, partially when some rule is overridden. The
// operator then waits for Authorino and the path's AuthConfig to be ready; rlpkit takes
// them as ready.
func authEnforcement(p *kuadrantv1.RateLimitPolicy, paths []*EffectivePolicy) (bool, string, string) {
	return ruleEnforcement(kuadrantv1.AuthPolicyKind, p, paths, true)
}

// authWarnings returns a warning for every condition of an AuthPolicy's status that is
// not True, at its line, as Warnings does for RateLimitPolicies: a target not found adds
// the likely misspellings and what there is, an InvalidCelExpression the routes where the
// auth action failed and whose when it was.
func authWarnings(set *policy.Set, res *Result) []policyapi.Warning {
	a := newAuthPolicies(set, newTargets(set))
	byName := map[string]*kuadrantv1.RateLimitPolicy{}
	for _, s := range a.shadows {
		byName[s.Namespace+"/"+s.Name] = s
	}
	var out []policyapi.Warning
	for _, st := range res.AuthPolicies {
		s := byName[st.Name]
		for _, c := range st.Conditions {
			if c.Status == metav1.ConditionTrue {
				continue
			}
			field, msg := "spec", c.Reason+": "+c.Message
			if c.Reason == ReasonTargetNotFound {
				field = "spec.targetRef"
				msg += targetHint(set, s)
			}
			if c.Reason == ReasonInvalidCelExpression {
				msg += invalidWhere(res.AuthEffective, s)
			}
			src, _ := set.FieldSource(policy.AuthPolicyKey(a.of[s]), field)
			out = append(out, policyapi.Warning{Source: src, Object: policy.KindAuthPolicy + " " + st.Name, Field: field, Message: msg})
		}
	}
	return out
}
