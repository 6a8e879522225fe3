package kuadrant

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policy/kuadrantv1"
	"github.com/rlpkit/rlpkit/policyapi"
	"github.com/rlpkit/rlpkit/wasmshim"
)

// Warnings returns a warning for every status condition of res that is not True,
// at its policy's line: "file:line: RateLimitPolicy ns/name: field: Reason: message". A
// target not found adds what there is: the likely misspellings ("did you mean ...?") and
// the Gateways, HTTPRoutes or GRPCRoutes of the policy's namespace, or, for a sectionName, the
// Gateway's listeners or the route's rules. A predicate that the operator's check accepts
// but rlpkit's stricter one (wasmshim.CheckPredicate: the attributes typed as Kuadrant
// documents them) does not, such as source.id, adds a warning at the predicate.
func Warnings(set *policy.Set, res *Result) []policyapi.Warning {
	byName := map[string]*kuadrantv1.RateLimitPolicy{}
	for _, p := range set.PoliciesV1 {
		byName[p.Namespace+"/"+p.Name] = p
	}
	var out []policyapi.Warning
	for _, p := range res.Policies {
		out = append(out, predicateWarnings(set, byName[p.Name])...)
		for _, c := range p.Conditions {
			if c.Status == "True" {
				continue
			}
			field, msg := "spec", c.Reason+": "+c.Message
			if c.Reason == ReasonTargetNotFound {
				field = "spec.targetRef"
				msg += targetHint(set, byName[p.Name])
			}
			if c.Reason == ReasonInvalidCelExpression {
				msg += invalidWhere(res.Effective, byName[p.Name])
				if strings.Contains(c.Message, "undeclared reference to 'auth'") {
					msg += "; auth.* is set by an AuthPolicy on the same path, and no valid AuthPolicy among the inputs is on this one, so a predicate reading it never passes here"
				}
			}
			src, _ := set.FieldSource(policy.PolicyV1Key(byName[p.Name]), field)
			out = append(out, policyapi.Warning{Source: src, Object: "RateLimitPolicy " + p.Name, Field: field, Message: msg})
		}
	}
	return out
}

// predicateWarnings returns a warning for every predicate of p that rlpkit's stricter
// check rejects, in field order (top-level when, then limits by name).
func predicateWarnings(set *policy.Set, p *kuadrantv1.RateLimitPolicy) []policyapi.Warning {
	proper, _, _ := p.Spec.Proper()
	base := field.NewPath("spec")
	switch {
	case p.Spec.Overrides != nil:
		base = base.Child("overrides")
	case p.Spec.Defaults != nil:
		base = base.Child("defaults")
	}
	var out []policyapi.Warning
	check := func(when []kuadrantv1.WhenPredicate, at *field.Path) {
		for i, w := range when {
			if _, err := wasmshim.CheckPredicate(w.Predicate); err != nil {
				fp := at.Index(i).Child("predicate").String()
				src, _ := set.FieldSource(policy.PolicyV1Key(p), fp)
				msg := err.Error()
				if ce, ok := err.(*wasmshim.CheckError); ok {
					msg = ce.Msg
				}
				out = append(out, policyapi.Warning{Source: src, Object: "RateLimitPolicy " + p.Namespace + "/" + p.Name, Field: fp,
					Message: "rlpkit's check of Kuadrant's well-known attributes: " + msg})
			}
		}
	}
	check(proper.When, base.Child("when"))
	names := make([]string, 0, len(proper.Limits))
	for name := range proper.Limits {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		check(proper.Limits[name].When, base.Child("limits").Key(name).Child("when"))
	}
	return out
}

// invalidWhere says on which routes the operator's check failed among the effective
// policies of the paths p (by namespace/name) is on, and whose predicate failed: "(failing on route ns/name, a predicate of ns/policy)".
func invalidWhere(effective []EffectivePolicy, p *kuadrantv1.RateLimitPolicy) string {
	var where []string
	for i := range effective {
		e := &effective[i]
		if e.InvalidPredicate == nil || !slices.ContainsFunc(e.Policies, func(q *kuadrantv1.RateLimitPolicy) bool { return q.Namespace == p.Namespace && q.Name == p.Name }) {
			continue
		}
		w := "route " + e.Path.RouteKey()
		if e.InvalidSource != nil {
			w += ", a predicate of " + e.InvalidSource.Namespace + "/" + e.InvalidSource.Name
		}
		where = append(where, w)
	}
	where = slices.Compact(where)
	if len(where) == 0 {
		return ""
	}
	return " (failing on " + strings.Join(where, "; ") + ")"
}
