package envoygateway

import (
	"fmt"
	"slices"

	"github.com/rlpkit/rlpkit/policy/egv1alpha1"
)

// mergeRateLimits merges a route's rate limits into its parent's as Envoy Gateway merges
// its IR: with StrategicMerge the rule lists combine by name, the route's rules first, then
// the parent's others; with JSONMerge the route's list replaces the parent's. An empty or
// absent list keeps the parent's; the route's local default wins.
func mergeRateLimits(parent, route *RateLimit, mt egv1alpha1.MergeType) (*RateLimit, error) {
	if mt != egv1alpha1.StrategicMerge && mt != egv1alpha1.JSONMerge {
		return nil, fmt.Errorf("error merging rate limits: unsupported merge type: %s", mt)
	}
	out := &RateLimit{HasGlobal: parent.HasGlobal || route.HasGlobal}
	out.Global = mergeRules(parent.Global, route.Global, mt)
	switch {
	case route.Local == nil:
		out.Local = parent.Local
	case parent.Local == nil:
		out.Local = route.Local
	default:
		l := *route.Local
		if l.XRateLimitHeaders == nil {
			l.XRateLimitHeaders = parent.Local.XRateLimitHeaders
		}
		l.Rules = mergeRules(parent.Local.Rules, route.Local.Rules, mt)
		out.Local = &l
	}
	return out, nil
}

func mergeRules(parent, route []*Rule, mt egv1alpha1.MergeType) []*Rule {
	switch {
	case len(route) == 0:
		return parent
	case mt == egv1alpha1.JSONMerge || len(parent) == 0:
		return route
	}
	out := slices.Clone(route)
	for _, r := range parent {
		if !slices.ContainsFunc(route, func(x *Rule) bool { return x.Name == r.Name }) {
			out = append(out, r)
		}
	}
	return out
}

// mergeSpecs merges a route policy's rate limits into its parent's as Envoy Gateway merges
// the policies themselves (the rule lists are replaced, not combined), for the errors the
// merged policy has.
func mergeSpecs(parent, route *egv1alpha1.RateLimitSpec) *egv1alpha1.RateLimitSpec {
	switch {
	case route == nil:
		return parent
	case parent == nil:
		return route
	}
	out := *parent
	if route.Type != nil {
		out.Type = route.Type
	}
	if route.Global != nil {
		g := *route.Global
		if len(g.Rules) == 0 && parent.Global != nil {
			g.Rules = parent.Global.Rules
		}
		out.Global = &g
	}
	if route.Local != nil {
		l := *route.Local
		if len(l.Rules) == 0 && parent.Local != nil {
			l.Rules = parent.Local.Rules
		}
		out.Local = &l
	}
	return &out
}
