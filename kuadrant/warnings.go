package kuadrant

import (
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policy/kuadrantv1"
	"github.com/rlpkit/rlpkit/policyapi"
)

// Warnings returns a warning for every status condition of res that is not True,
// at its policy's line: "file:line: RateLimitPolicy ns/name: field: Reason: message". A
// target not found adds what there is: the likely misspellings ("did you mean ...?") and
// the Gateways or HTTPRoutes of the policy's namespace, or, for a sectionName, the
// Gateway's listeners or the route's rules.
func Warnings(set *policy.Set, res *Result) []policyapi.Warning {
	byName := map[string]*kuadrantv1.RateLimitPolicy{}
	for _, p := range set.PoliciesV1 {
		byName[p.Namespace+"/"+p.Name] = p
	}
	var out []policyapi.Warning
	for _, p := range res.Policies {
		for _, c := range p.Conditions {
			if c.Status == "True" {
				continue
			}
			field, msg := "spec", c.Reason+": "+c.Message
			if c.Reason == ReasonTargetNotFound {
				field = "spec.targetRef"
				msg += targetHint(set, byName[p.Name])
			}
			src, _ := set.FieldSource(policy.PolicyV1Key(byName[p.Name]), field)
			out = append(out, policyapi.Warning{Source: src, Object: "RateLimitPolicy " + p.Name, Field: field, Message: msg})
		}
	}
	return out
}
