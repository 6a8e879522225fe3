package merge

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policyapi"
)

// DefaultUpstreamCluster is the rate-limit service cluster of compiled policies when Options
// names none.
const DefaultUpstreamCluster = "rate-limit-cluster"

// Options tune Compile. The zero value compiles with the defaults.
type Options struct {
	// UpstreamCluster is the Envoy cluster of the rate-limit service; empty means
	// DefaultUpstreamCluster.
	UpstreamCluster string
	// FailureModeDeny denies traffic when the rate-limit service cannot be reached.
	FailureModeDeny bool
	// Now is the lastTransitionTime of the status conditions; the zero value keeps output
	// reproducible.
	Now metav1.Time
	// Actions merges gateway actions; nil means AggregateActions.
	Actions ActionStrategy
	// Limits merges rate limits; nil means PatchLimits.
	Limits LimitStrategy
}

// Result is what Compile produces: per Gateway the filter's PluginConfig and the service's
// limits, and each policy's status.
type Result struct {
	// Gateways are the compiled Gateways, sorted by namespace/name.
	Gateways []GatewayConfig `json:"gateways"`
	// Policies are the statuses of every policy read, sorted by namespace/name.
	Policies []PolicyStatus `json:"policies"`
	// Warnings are what Diagnose finds in the inputs: routes and policies that apply to no
	// request, and why.
	Warnings []Warning `json:"warnings,omitempty"`
}

// GatewayConfig is the compiled configuration of one Gateway.
type GatewayConfig struct {
	// Gateway is "namespace/name".
	Gateway string `json:"gateway"`
	// PluginConfig is for the Gateway's rate-limit filter.
	PluginConfig descriptor.PluginConfig `json:"pluginConfig"`
	// Limits are for the rate-limit service, in limitador's format; each limit's namespace
	// is the rate-limit domain of the route it belongs to.
	Limits []limitador.Limit `json:"limits"`
	// Routes explain each policy of PluginConfig, in the same order.
	Routes []RouteConfig `json:"-"`
}

// RouteConfig is the merged configuration of one HTTPRoute attached to a Gateway, with the
// origin of every piece.
type RouteConfig struct {
	// Route is "namespace/name".
	Route string
	// Domain is the rate-limit domain, "gatewayNs/gatewayName#routeNs/routeName".
	Domain string
	// Hostnames are the hostnames the route serves on the Gateway.
	Hostnames []string
	// Listeners are the listeners the route is attached through.
	Listeners []gatewayv1.SectionName
	// Sections are the merged sections, highest precedence first.
	Sections []Section
	// Actions are the effective gateway actions.
	Actions []EffectiveAction
	// Limits are the effective rate limits.
	Limits []EffectiveLimit
	// Replaced are the rate limits the merge left out.
	Replaced []Replaced
}

// PolicyStatus is the status of one RateLimitPolicy, the contract's (Conditions are
// Accepted and Enforced).
type PolicyStatus = policyapi.PolicyStatus

// Compile merges the policies of set along Gateway -> HTTPRoute and compiles, for every
// Gateway, a PluginConfig and the limits, plus every policy's status. Objects with
// validation problems take no part (an invalid policy is reported Invalid). A policy whose
// compiled configuration still fails the checks of package descriptor or limit (a Set built
// in code and never validated, or a custom strategy) is left out everywhere and reported
// Invalid with the problems, and everything else compiles without it. The result is
// deterministic: the same objects in any order give the same result. The error is non-nil
// only when the compiled configuration of a Gateway is invalid for a reason no policy is
// responsible for: two objects of one kind with the same namespace and name in a Set built in
// code.
func Compile(set *policy.Set, opts Options) (*Result, error) {
	if opts.UpstreamCluster == "" {
		opts.UpstreamCluster = DefaultUpstreamCluster
	}
	if opts.Actions == nil {
		opts.Actions = AggregateActions
	}
	if opts.Limits == nil {
		opts.Limits = PatchLimits
	}
	valid := validObjects(set)
	rejected := map[*policy.RateLimitPolicy]string{}
	for {
		res, bad, err := compileOnce(set, valid, rejected, opts)
		if len(bad) == 0 || err != nil {
			return res, err
		}
		// Each round rejects at least one more policy, so this ends.
		maps.Copy(rejected, bad)
	}
}

// routeCheck locates one route's piece of a GatewayConfig: its index in Routes and
// PluginConfig.RateLimitPolicies, and its range of Limits.
type routeCheck struct {
	route  int
	limits [2]int
}

// compileOnce compiles set without the rejected policies. It returns the policies whose
// compiled configuration is invalid, with why, instead of a result when there are any.
func compileOnce(set, valid *policy.Set, rejected map[*policy.RateLimitPolicy]string, opts Options) (*Result, map[*policy.RateLimitPolicy]string, error) {
	st := newStatusTracker(set, valid, rejected)
	topo := newTopology(valid)

	routes := slices.Clone(valid.HTTPRoutes)
	slices.SortFunc(routes, func(a, b *gatewayv1.HTTPRoute) int { return olderFirst(&a.ObjectMeta, &b.ObjectMeta) })
	byGateway := map[*gatewayv1.Gateway][]Attachment{}
	for _, r := range routes {
		for _, a := range topo.attach(r) {
			byGateway[a.Gateway] = append(byGateway[a.Gateway], a)
		}
	}

	gateways := slices.Clone(valid.Gateways)
	slices.SortFunc(gateways, func(a, b *gatewayv1.Gateway) int { return byNamespacedName(&a.ObjectMeta, &b.ObjectMeta) })
	res := &Result{}
	bad := map[*policy.RateLimitPolicy]string{}
	for _, gw := range gateways {
		gc := GatewayConfig{Gateway: nsName(&gw.ObjectMeta), Limits: []limitador.Limit{}}
		deny := opts.FailureModeDeny
		gc.PluginConfig.FailureModeDeny = &deny
		gwPolicy := st.winner(policy.KindGateway, gw.Namespace, gw.Name)
		var checks []routeCheck // to find the policy responsible if the Gateway is invalid
		for _, a := range byGateway[gw] {
			rc := compileRoute(a, gwPolicy, st.winner(policy.KindHTTPRoute, a.Route.Namespace, a.Route.Name), opts)
			st.record(rc)
			if len(rc.Actions) == 0 && len(rc.Limits) == 0 {
				continue
			}
			first := len(gc.Limits)
			gc.Routes = append(gc.Routes, rc)
			gc.PluginConfig.RateLimitPolicies = append(gc.PluginConfig.RateLimitPolicies, descriptor.Policy{
				Name:            rc.Route,
				RateLimitDomain: rc.Domain,
				UpstreamCluster: opts.UpstreamCluster,
				Hostnames:       rc.Hostnames,
				RouteMatches:    routeMatches(a.Route),
				GatewayActions:  actionsOf(rc.Actions),
			})
			for _, l := range rc.Limits {
				gc.Limits = append(gc.Limits, toLimit(rc.Domain, l))
			}
			checks = append(checks, routeCheck{route: len(gc.Routes) - 1, limits: [2]int{first, len(gc.Limits)}})
		}
		derr := descriptor.Validate(&gc.PluginConfig)
		lerr := limitador.ValidateLimits(gc.Limits)
		if derr == nil && lerr == nil {
			res.Gateways = append(res.Gateways, gc)
			continue
		}
		before := len(bad)
		for _, c := range checks {
			blame(bad, gc.Gateway, &gc.Routes[c.route], &gc.PluginConfig.RateLimitPolicies[c.route], gc.Limits[c.limits[0]:c.limits[1]])
		}
		if len(bad) == before { // no policy to blame: a problem across routes
			if derr != nil {
				return nil, nil, fmt.Errorf("merge: the PluginConfig compiled for Gateway %s is invalid (are objects duplicated in the Set?):\n%w", gc.Gateway, derr)
			}
			return nil, nil, fmt.Errorf("merge: the limits compiled for Gateway %s are invalid (are objects duplicated in the Set?):\n%w", gc.Gateway, lerr)
		}
	}
	if len(bad) > 0 {
		return nil, bad, nil
	}
	res.Policies = st.statuses(opts.Now)
	res.Warnings = diagnose(set, rejected)
	return res, nil, nil
}

// compileRoute merges the sections of the Gateway's and the route's policies for one
// attachment.
func compileRoute(a Attachment, gwPolicy, routePolicy *policy.RateLimitPolicy, opts Options) RouteConfig {
	route := nsName(&a.Route.ObjectMeta)
	rc := RouteConfig{
		Route:     route,
		Domain:    nsName(&a.Gateway.ObjectMeta) + "#" + route,
		Hostnames: a.Hostnames,
		Listeners: a.Listeners,
		Sections:  Precedence(gwPolicy, routePolicy),
	}
	rc.Actions = opts.Actions(rc.Sections)
	rc.Limits, rc.Replaced = opts.Limits(rc.Sections)
	return rc
}

func actionsOf(list []EffectiveAction) []descriptor.GatewayAction {
	out := make([]descriptor.GatewayAction, len(list))
	for i, a := range list {
		out[i] = a.Action
	}
	return out
}

// toLimit turns an effective limit into the service's format. Validation keeps max_value
// and seconds within uint32.
func toLimit(domain string, l EffectiveLimit) limitador.Limit {
	return limitador.Limit{
		Namespace:  domain,
		MaxValue:   uint32(min(max(l.Limit.MaxValue, 0), math.MaxUint32)),
		Seconds:    uint32(min(max(l.Limit.Seconds, 0), math.MaxUint32)),
		Conditions: nonNil(l.Limit.Conditions),
		Variables:  nonNil(l.Limit.Variables),
		Name:       l.Origin.path("rateLimits"),
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// validObjects returns the objects of set without validation problems.
func validObjects(set *policy.Set) *policy.Set {
	keep := func(kind string, m *metav1.ObjectMeta) bool {
		ns := m.Namespace
		if kind == policy.KindNamespace {
			ns = ""
		}
		return len(set.Problems(policy.ObjectKey{Kind: kind, Namespace: ns, Name: m.Name})) == 0
	}
	return &policy.Set{
		Gateways:   slices.DeleteFunc(slices.Clone(set.Gateways), func(g *gatewayv1.Gateway) bool { return !keep(policy.KindGateway, &g.ObjectMeta) }),
		HTTPRoutes: slices.DeleteFunc(slices.Clone(set.HTTPRoutes), func(r *gatewayv1.HTTPRoute) bool { return !keep(policy.KindHTTPRoute, &r.ObjectMeta) }),
		Policies:   slices.DeleteFunc(slices.Clone(set.Policies), func(p *policy.RateLimitPolicy) bool { return !keep(policy.KindRateLimitPolicy, &p.ObjectMeta) }),
		Namespaces: slices.DeleteFunc(slices.Clone(set.Namespaces), func(n *policy.Namespace) bool { return !keep(policy.KindNamespace, &n.ObjectMeta) }),
	}
}

// olderFirst orders objects by creationTimestamp, then namespace/name: Gateway API's order
// for conflicting routes, and this package's for conflicting policies.
func olderFirst(a, b *metav1.ObjectMeta) int {
	if c := a.CreationTimestamp.Time.Compare(b.CreationTimestamp.Time); c != 0 {
		return c
	}
	return byNamespacedName(a, b)
}

// byNamespacedName orders objects by namespace, then name.
func byNamespacedName(a, b *metav1.ObjectMeta) int {
	return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
}

func nsName(m *metav1.ObjectMeta) string { return m.Namespace + "/" + m.Name }
