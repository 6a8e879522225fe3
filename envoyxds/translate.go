package envoyxds

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	ratelimitv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ratelimit/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/fielderr"
)

// Translate returns the Envoy configuration that makes Envoy's own rate-limit filter send the
// rate-limit service the descriptors package descriptor generates from cfg (see the package
// documentation for how, and for what Envoy cannot express). It validates cfg as
// descriptor.Compile does; an invalid configuration, or one Envoy cannot express exactly, is
// refused with a fielderr.List naming every offending field. The Output shares no memory with
// cfg.
// Translate is safe for concurrent use; Options.Route is called from the calling goroutine.
func Translate(cfg *descriptor.PluginConfig, opts Options) (*Output, error) {
	if cfg == nil {
		return nil, fielderr.List{{Pkg: pkg, Detail: "no PluginConfig"}}
	}
	if err := descriptor.Validate(cfg); err != nil {
		return nil, invalid(err)
	}
	if opts.MaxRoutes <= 0 {
		opts.MaxRoutes = DefaultMaxRoutes
	}
	t := &translator{cfg: cfg, opts: opts, perRoute: make(map[string]*anypb.Any)}
	t.translateConfigurations()
	t.filterOf, t.clusters = filterNames(cfg)
	rc, err := t.routeConfiguration()
	if err != nil {
		return nil, err
	}
	if len(t.c.errs) > 0 {
		return nil, t.c.errs
	}
	if opts.Strict && len(t.c.caveats) > 0 {
		var es fielderr.List
		for _, cv := range t.c.caveats {
			es = append(es, &fielderr.Error{Pkg: pkg, Field: cv.Field, Detail: "refused by Options.Strict: " + cv.Detail})
		}
		return nil, es
	}
	if err := rc.ValidateAll(); err != nil {
		return nil, fmt.Errorf("envoyxds: the generated RouteConfiguration is invalid: %w", err)
	}
	filters, err := t.httpFilters()
	if err != nil {
		return nil, err
	}
	return &Output{RouteConfiguration: rc, HTTPFilters: filters, Caveats: t.c.caveats}, nil
}

// translator holds what Translate computes once and uses for every route.
type translator struct {
	cfg        *descriptor.PluginConfig
	opts       Options
	c          collector
	rateLimits [][][]*routev3.RateLimit // [policy][gateway action][configuration]
	filterOf   []string                 // filter name of each policy
	clusters   []string
	perRoute   map[string]*anypb.Any // packed RateLimitPerRoute by policy and gateway actions
}

// translateConfigurations translates every configuration of every policy into a RateLimit,
// collecting refusals and caveats.
func (t *translator) translateConfigurations() {
	t.rateLimits = make([][][]*routev3.RateLimit, len(t.cfg.RateLimitPolicies))
	for i := range t.cfg.RateLimitPolicies {
		pol := &t.cfg.RateLimitPolicies[i]
		t.rateLimits[i] = make([][]*routev3.RateLimit, len(pol.GatewayActions))
		for g := range pol.GatewayActions {
			gp := policyPath(i).Child("gatewayActions").Index(g)
			for k := range pol.GatewayActions[g].Configurations {
				rl := t.c.rateLimit(gp.Child("configurations").Index(k), &pol.GatewayActions[g].Configurations[k], t.opts.Route != nil)
				t.rateLimits[i][g] = append(t.rateLimits[i][g], rl)
			}
		}
	}
}

// routeConfiguration builds the virtual hosts and their routes. A policy whose rules need too
// many routes is refused (once) through the collector; an error is returned only when
// Options.Route fails or packing fails.
func (t *translator) routeConfiguration() (*routev3.RouteConfiguration, error) {
	rc := &routev3.RouteConfiguration{Name: t.opts.RouteConfigName, IgnorePortInHostMatching: true}
	if rc.Name == "" {
		rc.Name = DefaultRouteConfigName
	}
	refused := make(map[int]bool)
	vhostNames := make(map[string]bool)
	for _, plan := range planVirtualHosts(t.cfg) {
		vh := &routev3.VirtualHost{Name: t.vhostName(plan, vhostNames), Domains: envoyDomains(plan.domains)}
		budget := t.opts.MaxRoutes
		for _, pp := range plan.chain {
			specs, err := policyRoutes(&t.cfg.RateLimitPolicies[pp.index], pp, budget)
			if err != nil {
				if !refused[pp.index] {
					refused[pp.index] = true
					t.c.refuse(policyPath(pp.index), fmt.Sprintf("in the virtual host of %q its rules need more than %d routes (Options.MaxRoutes): "+
						"every set of gateway actions whose rules can match one request together needs routes of its own", plan.domains[0], t.opts.MaxRoutes))
				}
				break
			}
			budget -= len(specs)
			for n, spec := range specs {
				r, err := t.route(pp.index, n, spec)
				if err != nil {
					return nil, err
				}
				vh.Routes = append(vh.Routes, r)
			}
		}
		rc.VirtualHosts = append(rc.VirtualHosts, vh)
	}
	return rc, nil
}

// httpFilters builds and validates one rate-limit filter per upstream cluster.
func (t *translator) httpFilters() ([]*hcmv3.HttpFilter, error) {
	var out []*hcmv3.HttpFilter
	for _, cluster := range t.clusters {
		fc := filterConfig(t.cfg, cluster)
		if err := fc.ValidateAll(); err != nil {
			return nil, fmt.Errorf("envoyxds: the rate-limit filter for cluster %q is invalid: %w", cluster, err)
		}
		f, err := httpFilter(filterName(cluster, len(t.clusters)), fc)
		if err != nil {
			return nil, err
		}
		if err := f.ValidateAll(); err != nil {
			return nil, fmt.Errorf("envoyxds: the HTTP filter for cluster %q is invalid: %w", cluster, err)
		}
		out = append(out, f)
	}
	return out, nil
}

// label names policy i in generated names: its name, or its field path.
func (t *translator) label(i int) string {
	if name := t.cfg.RateLimitPolicies[i].Name; name != "" {
		return name
	}
	return string(policyPath(i))
}

// vhostName names a virtual host after the policies that can serve it, in order; a second
// virtual host with the same policies adds its first domain.
func (t *translator) vhostName(plan *vhostPlan, used map[string]bool) string {
	labels := make([]string, len(plan.chain))
	for i, p := range plan.chain {
		labels[i] = t.label(p.index)
	}
	name := strings.Join(labels, ",")
	if used[name] {
		name += "@" + plan.domains[0]
	}
	for base, n := name, 2; used[name]; n++ {
		name = base + "#" + strconv.Itoa(n)
	}
	used[name] = true
	return name
}

// route builds the n-th route of policy i in a virtual host.
func (t *translator) route(i, n int, spec routeSpec) (*routev3.Route, error) {
	r := &routev3.Route{Name: t.label(i) + "#" + strconv.Itoa(n), Match: spec.match}
	perRoute, err := t.perRouteConfig(i, spec.actions)
	if err != nil {
		return nil, err
	}
	if perRoute != nil {
		r.TypedPerFilterConfig = map[string]*anypb.Any{t.filterOf[i]: perRoute}
	}
	if t.opts.Route == nil {
		r.Action = &routev3.Route_Route{Route: DefaultRoute(t.label(i))}
		return r, nil
	}
	if err := t.opts.Route(i, r); err != nil {
		return nil, fmt.Errorf("envoyxds: Options.Route(%d, route %q): %w", i, r.Name, err)
	}
	if r.GetRoute() == nil {
		return nil, fmt.Errorf("envoyxds: Options.Route(%d, route %q) left the route without a route action; Envoy's rate-limit filter ignores such routes", i, r.Name)
	}
	return r, nil
}

// perRouteConfig returns the RateLimitPerRoute of a route of policy i whose requests the
// given gateway actions apply to, packed; nil when those actions have no configurations.
func (t *translator) perRouteConfig(i int, actions []int) (*anypb.Any, error) {
	var rls []*routev3.RateLimit
	for _, g := range actions {
		rls = append(rls, t.rateLimits[i][g]...)
	}
	if len(rls) == 0 {
		return nil, nil
	}
	key := fmt.Sprint(i, actions)
	if a, ok := t.perRoute[key]; ok {
		return proto.Clone(a).(*anypb.Any), nil
	}
	prl := &ratelimitv3.RateLimitPerRoute{Domain: t.cfg.RateLimitPolicies[i].RateLimitDomain, RateLimits: rls}
	if err := prl.ValidateAll(); err != nil {
		return nil, fmt.Errorf("envoyxds: the rate limits of %s are invalid: %w", policyPath(i), err)
	}
	a, err := pack(prl)
	if err != nil {
		return nil, err
	}
	t.perRoute[key] = a
	return proto.Clone(a).(*anypb.Any), nil
}

// pack wraps m in an Any, serialised deterministically.
func pack(m proto.Message) (*anypb.Any, error) {
	a := new(anypb.Any)
	if err := anypb.MarshalFrom(a, m, proto.MarshalOptions{Deterministic: true}); err != nil {
		return nil, fmt.Errorf("envoyxds: packing %s: %w", m.ProtoReflect().Descriptor().FullName(), err)
	}
	return a, nil
}

// invalid converts descriptor's validation errors.
func invalid(err error) error {
	var list fielderr.List
	if !errors.As(err, &list) {
		return fmt.Errorf("envoyxds: invalid PluginConfig: %w", err)
	}
	out := make(fielderr.List, len(list))
	for i, e := range list {
		out[i] = &fielderr.Error{Pkg: pkg, Field: e.Field, Detail: "invalid PluginConfig: " + e.Detail, Err: e}
	}
	return out
}
