package kuadrant

import (
	"cmp"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policy/kuadrantv1"
	"github.com/rlpkit/rlpkit/policyapi"
)

// The condition types and reasons of a RateLimitPolicy's status, as kuadrant-operator
// reports them once its components are ready.
const (
	ConditionAccepted = "Accepted"
	ConditionEnforced = "Enforced"

	ReasonAccepted             = "Accepted"
	ReasonInvalid              = "Invalid"
	ReasonTargetNotFound       = "TargetNotFound"
	ReasonEnforced             = "Enforced"
	ReasonOverridden           = "Overridden"
	ReasonUnknown              = "Unknown"
	ReasonInvalidCelExpression = "InvalidCelExpression"
)

// PolicyStatus is the status of one kuadrant.io/v1 RateLimitPolicy, the contract's
// (Conditions are Accepted and, for an accepted policy, Enforced).
type PolicyStatus = policyapi.PolicyStatus

// Locator names a policy as wasm-shim's sources do: "ratelimitpolicy.kuadrant.io:ns/name".
func Locator(p *kuadrantv1.RateLimitPolicy) string {
	return "ratelimitpolicy.kuadrant.io:" + p.Namespace + "/" + p.Name
}

// targets indexes the Gateways, HTTPRoutes and GRPCRoutes of a set by namespace/name.
type targets struct {
	gateways   map[string]*gatewayv1.Gateway
	routes     map[string]*gatewayv1.HTTPRoute
	grpcRoutes map[string]*gatewayv1.GRPCRoute
}

func newTargets(set *policy.Set) targets {
	t := targets{gateways: map[string]*gatewayv1.Gateway{}, routes: map[string]*gatewayv1.HTTPRoute{}, grpcRoutes: grpcRouteIndex(set)}
	for _, gw := range set.Gateways {
		t.gateways[gw.Namespace+"/"+gw.Name] = gw
	}
	for _, r := range set.HTTPRoutes {
		t.routes[r.Namespace+"/"+r.Name] = r
	}
	return t
}

// found reports whether a policy's target, and its section, are among the inputs.
func (t targets) found(p *kuadrantv1.RateLimitPolicy) bool {
	ref := p.Spec.TargetRef
	key := p.Namespace + "/" + string(ref.Name)
	switch ref.Kind {
	case "Gateway":
		gw, ok := t.gateways[key]
		return ok && (ref.SectionName == nil || slices.ContainsFunc(gw.Spec.Listeners, func(l gatewayv1.Listener) bool { return l.Name == *ref.SectionName }))
	case "HTTPRoute":
		r, ok := t.routes[key]
		if !ok || ref.SectionName == nil {
			return ok
		}
		for i := range r.Spec.Rules {
			if RuleName(r, i) == string(*ref.SectionName) {
				return true
			}
		}
	case policy.KindGRPCRoute:
		return t.foundGRPC(key, ref.SectionName)
	}
	return false
}

// statuses computes every policy's conditions from the effective policies of the valid
// paths.
func statuses(set *policy.Set, effective []EffectivePolicy, now metav1.Time) []PolicyStatus {
	on := validPaths(effective)
	targets := newTargets(set)
	var out []PolicyStatus
	for _, p := range set.PoliciesV1 {
		ps := PolicyStatus{Name: p.Namespace + "/" + p.Name}
		ps.Conditions = policyConditions("RateLimitPolicy", p.Generation, now, set.Problems(policy.PolicyV1Key(p)), targets.found(p), p.Spec.TargetRef,
			func() (bool, string, string) { return enforcement(p, on[p]) })
		out = append(out, ps)
	}
	slices.SortFunc(out, func(a, b PolicyStatus) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// enforcement tells whether the rules of p are in effect on the valid paths through its
// target, in the operator's order: a policy none of whose rules is in effect is Unknown
// (on no path) or Overridden; one in effect somewhere is InvalidCelExpression when the
// operator's check failed on any path it is on (its own predicates or another policy's
// merged beside them), quoting every such failure in path order; else Enforced, fully or
// partially.
func enforcement(p *kuadrantv1.RateLimitPolicy, paths []*EffectivePolicy) (bool, string, string) {
	return ruleEnforcement("RateLimitPolicy", p, paths, false)
}

// ruleEnforcement is the Enforced condition of the policy p of kind (a RateLimitPolicy, or
// an AuthPolicy's shadow) from the effective policies of the paths it is on. A rule of p
// missing from a path's effective policy names every source of it as overriding, p
// itself too when withSelf (the AuthPolicy's status updater, which does not leave it out).
func ruleEnforcement(kind string, p *kuadrantv1.RateLimitPolicy, paths []*EffectivePolicy, withSelf bool) (bool, string, string) {
	rules := RulesOf(p)
	affected := false
	var by, issues []string
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
				by = append(by, r.Source.Namespace+"/"+r.Source.Name)
			default:
				for _, other := range e.Rules {
					if withSelf || other.Source != p {
						by = append(by, other.Source.Namespace+"/"+other.Source.Name)
					}
				}
			}
		}
	}
	slices.Sort(by)
	by = slices.Compact(by)
	switch {
	case !affected && len(by) == 0:
		return false, ReasonUnknown, kind + " is not in the path to any existing routes"
	case !affected:
		return false, ReasonOverridden, kind + " is overridden by [" + strings.Join(by, " ") + "]"
	case len(issues) > 0:
		return false, ReasonInvalidCelExpression, "validation issues: [" + strings.Join(issues, " ") + "]"
	case len(by) == 0:
		return true, ReasonEnforced, kind + " has been successfully enforced"
	}
	return true, ReasonEnforced, kind + " has been partially enforced"
}
