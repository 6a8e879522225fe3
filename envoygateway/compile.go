package envoygateway

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policyapi"
)

// Result is what Envoy Gateway serves for a set of objects.
type Result struct {
	// RateLimitConfigs are the configurations of the rate-limit service, one per domain,
	// sorted by domain.
	RateLimitConfigs []RateLimitConfig `json:"rateLimitConfigs"`
	// Routes are the xDS routes that carry rate limits, one per Gateway and route, sorted by
	// Gateway, then name.
	Routes []RouteRateLimits `json:"routes"`
	// Statuses are the policies' Accepted conditions, one status per policy and
	// ancestor, sorted by policy, then ancestor; printed as StatusOutput.
	Statuses []policyapi.PolicyStatus `json:"-"`
	// Gateways are the Gateways with their listeners and xDS routes in matching order, for
	// evaluating requests; not printed.
	Gateways []*Gateway `json:"-"`
}

// RouteRateLimits is the rate limits of one xDS route, as protojson with proto field names.
type RouteRateLimits struct {
	// Gateway is the "namespace/name" of the Gateway whose route configuration holds the
	// route: an HTTPRoute on two Gateways is two entries, each with its Gateway's domains.
	Gateway string `json:"gateway"`
	// Name is the xDS route's name.
	Name string `json:"name"`
	// RateLimits are the route's envoy.config.route.v3.RateLimit messages per domain, each
	// domain the configuration of one rate-limit filter (envoy.filters.http.ratelimit, or
	// envoy.filters.http.ratelimit/<domain> for a shared rule's).
	RateLimits map[string][]any `json:"rateLimits,omitempty"`
	// LocalRateLimit is the route's envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit.
	LocalRateLimit any `json:"localRateLimit,omitempty"`
}

// Output is what rlpkit compile prints of a Result.
type Output struct {
	RateLimitConfigs []RateLimitConfig `json:"rateLimitConfigs"`
	Routes           []RouteRateLimits `json:"routes"`
	Statuses         []StatusOutput    `json:"statuses"`
}

// Output returns the printed form of r.
func (r *Result) Output() Output {
	out := Output{RateLimitConfigs: r.RateLimitConfigs, Routes: r.Routes, Statuses: make([]StatusOutput, len(r.Statuses))}
	for i := range r.Statuses {
		out.Statuses[i] = statusOutput(&r.Statuses[i])
	}
	return out
}

// MarshalJSON encodes r as its Output.
func (r *Result) MarshalJSON() ([]byte, error) { return json.Marshal(r.Output()) }

// Gateway returns the Gateway named "namespace/name", nil when none.
func (r *Result) Gateway(name string) *Gateway {
	for _, g := range r.Gateways {
		if g.Name == name {
			return g
		}
	}
	return nil
}

// Compile translates the BackendTrafficPolicies of set as Envoy Gateway v1.9 does, over its
// Gateways, HTTPRoutes and GRPCRoutes: which policy each xDS route takes its rate limits
// from, the routes' rate-limit actions, the rate-limit service's configuration and the
// policies' statuses. Objects with validation problems take no part. The same objects in any order
// give the same result.
func Compile(set *policy.Set) (*Result, error) {
	m := newModel(set)
	prec := &precedence{m: m}
	for _, p := range set.BackendTrafficPolicies {
		if set.Problems(policy.BackendTrafficPolicyKey(p)) != nil {
			continue
		}
		name := p.Namespace + "/" + p.Name
		rl, err := buildRateLimit(name, p.Spec.RateLimit)
		if err != nil {
			err = fmt.Errorf("RateLimit: %w", err)
		}
		prec.policies = append(prec.policies, &pol{p: p, name: name, rl: rl, err: policyErr(set, err, otherFieldsOf(p), p)})
	}
	slices.SortFunc(prec.policies, func(a, b *pol) int { return byAge(a.p, b.p) })
	prec.run()
	res := &Result{Statuses: prec.st.sorted(), Gateways: m.gateways, RateLimitConfigs: []RateLimitConfig{}, Routes: []RouteRateLimits{}}
	cfgs := configs{byDomain: map[string]*RateLimitConfig{}}
	routes := map[routeKey]*RouteRateLimits{}
	for _, g := range m.gateways {
		for _, l := range g.Listeners {
			for _, rt := range l.Routes {
				if err := finish(g.Name, rt, l, &cfgs, routes); err != nil {
					return nil, err
				}
			}
		}
	}
	for _, c := range cfgs.byDomain {
		res.RateLimitConfigs = append(res.RateLimitConfigs, *c)
	}
	slices.SortFunc(res.RateLimitConfigs, func(a, b RateLimitConfig) int { return cmp.Compare(a.Domain, b.Domain) })
	for _, r := range routes {
		res.Routes = append(res.Routes, *r)
	}
	slices.SortFunc(res.Routes, func(a, b RouteRateLimits) int {
		return cmp.Or(cmp.Compare(a.Gateway, b.Gateway), cmp.Compare(a.Name, b.Name))
	})
	return res, nil
}

// routeKey identifies a printed route: its Gateway and its xDS name.
type routeKey struct{ gateway, name string }

// finish builds a route's actions and local configuration, adds its rules to the service's
// configuration and its printed form, under its Gateway gw, to routes.
func finish(gw string, rt *Route, l *Listener, cfgs *configs, routes map[routeKey]*RouteRateLimits) error {
	rl := rt.RateLimit
	if rl == nil {
		return nil
	}
	if rl.HasGlobal {
		cfgs.add(rt.Name, l.Name, rl.Global)
	}
	if rt.DirectResponse != 0 {
		return nil
	}
	if rl.HasGlobal {
		rt.Actions = routeActions(rt.Name, l.Name, rl.Global)
	}
	if rl.Local != nil {
		rt.LocalRateLimit = localConfig(rl.Local)
	}
	if len(rt.Actions) == 0 && rt.LocalRateLimit == nil {
		return nil
	}
	out := routes[routeKey{gw, rt.Name}]
	if out == nil {
		out = &RouteRateLimits{Gateway: gw, Name: rt.Name}
		routes[routeKey{gw, rt.Name}] = out
	}
	for domain, list := range rt.Actions {
		if out.RateLimits == nil {
			out.RateLimits = map[string][]any{}
		}
		if _, ok := out.RateLimits[domain]; ok {
			continue
		}
		for _, a := range list {
			v, err := protoValue(a)
			if err != nil {
				return fmt.Errorf("route %s: %w", rt.Name, err)
			}
			out.RateLimits[domain] = append(out.RateLimits[domain], v)
		}
	}
	if rt.LocalRateLimit != nil && out.LocalRateLimit == nil {
		v, err := protoValue(rt.LocalRateLimit)
		if err != nil {
			return fmt.Errorf("route %s: %w", rt.Name, err)
		}
		out.LocalRateLimit = v
	}
	return nil
}
