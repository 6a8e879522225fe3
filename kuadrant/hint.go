package kuadrant

import (
	"fmt"
	"slices"
	"strings"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policy/kuadrantv1"
	"github.com/rlpkit/rlpkit/policyapi"
)

// targetHint says, for a kuadrant.io/v1 policy whose target was not found, what is there:
// the likely misspellings of the Gateway, HTTPRoute or GRPCRoute and those of its
// namespace (and a route of the other kind of that name), or of the sectionName and the
// listeners of the Gateway or the rules of the route.
func targetHint(set *policy.Set, p *kuadrantv1.RateLimitPolicy) string {
	ref := p.Spec.TargetRef
	name := p.Namespace + "/" + string(ref.Name)
	kind := string(ref.Kind)
	var names []string
	var sections []string
	var owner string
	switch kind {
	case policy.KindGateway:
		for _, gw := range set.Gateways {
			if gw.Namespace == p.Namespace {
				names = append(names, gw.Name)
			}
			if gw.Namespace+"/"+gw.Name == name {
				owner = "listeners of Gateway " + name
				for _, l := range gw.Spec.Listeners {
					sections = append(sections, string(l.Name))
				}
			}
		}
	case policy.KindHTTPRoute:
		for _, r := range set.HTTPRoutes {
			if r.Namespace == p.Namespace {
				names = append(names, r.Name)
			}
			if r.Namespace+"/"+r.Name == name {
				owner = "rules of HTTPRoute " + name
				sections = ruleNames(r)
			}
		}
	case policy.KindGRPCRoute:
		names, sections, owner = grpcHint(set, p.Namespace, name)
	default:
		return ""
	}
	if owner == "" {
		return hint(string(ref.Name), names, fmt.Sprintf("%ss in namespace %s", kind, p.Namespace)) + otherRouteKind(set, kind, name)
	}
	if ref.SectionName == nil {
		return ""
	}
	return hint(string(*ref.SectionName), sections, owner)
}

// ruleNames returns the section names of a route's rules.
func ruleNames(r *gatewayv1.HTTPRoute) []string {
	out := make([]string, len(r.Spec.Rules))
	for i := range r.Spec.Rules {
		out[i] = RuleName(r, i)
	}
	return out
}

// hint writes " (did you mean x?); what: a, b", or "; no what" when names is empty.
func hint(name string, names []string, what string) string {
	slices.Sort(names)
	if len(names) == 0 {
		return "; no " + what
	}
	var b strings.Builder
	if similar := policyapi.Similar(name, names); len(similar) > 0 {
		fmt.Fprintf(&b, " (did you mean %s?)", strings.Join(similar, " or "))
	}
	fmt.Fprintf(&b, "; %s: %s", what, strings.Join(names[:min(len(names), 10)], ", "))
	if len(names) > 10 {
		fmt.Fprintf(&b, " and %d more", len(names)-10)
	}
	return b.String()
}
