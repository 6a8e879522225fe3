package envoyroute

import (
	"errors"
	"regexp"
	"slices"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	ratelimitv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ratelimit/v3"
)

// DefaultFilterName is the name Envoy's rate-limit filter has in an HTTP connection manager
// unless configured otherwise; per-route configuration (typed_per_filter_config) is looked up
// under a filter's name.
const DefaultFilterName = "envoy.filters.http.ratelimit"

// ErrNoDomain is New's error for a route configuration without rate-limit filters when
// Options.Domain is empty.
var ErrNoDomain = errors.New("envoyroute: no rate-limit filter and no domain: name the domain of the filter that reads the route configuration")

// Filter is one instance of Envoy's rate-limit filter (envoy.filters.http.ratelimit) in the
// HTTP connection manager that serves a route configuration.
type Filter struct {
	// Name is the filter's name in the connection manager, under which routes and virtual
	// hosts give it a RateLimitPerRoute.
	Name string
	// Config is the filter's configuration: its domain, stage and, when set, the
	// rate_limits that replace those of routes and virtual hosts.
	Config *ratelimitv3.RateLimit
}

// Options configures New and Load.
type Options struct {
	// Domain is the rate-limit domain of the one filter assumed when the input names no
	// HTTP filters (a bare RouteConfiguration).
	Domain string
	// SourceCluster is Envoy's local service cluster (--service-cluster), the value of
	// source_cluster actions.
	SourceCluster string
	// Gateway chooses, in "rlpkit compile -o envoy" output holding several Gateways, the
	// one ("namespace/name") whose configuration to read; it is required then.
	Gateway string
}

// Config is a route configuration and the rate-limit filters that read it, checked and
// ready to evaluate. It is immutable and safe for concurrent use.
type Config struct {
	routes  *routev3.RouteConfiguration
	filters []Filter
	opts    Options
	hosts   hostTable
	re      map[string]*regexp.Regexp // every regular expression, compiled as Envoy matches it
	perFC   map[*routev3.Route]map[string]*ratelimitv3.RateLimitPerRoute
	vhPerFC map[*routev3.VirtualHost]map[string]*ratelimitv3.RateLimitPerRoute
	rcPerFC map[string]*ratelimitv3.RateLimitPerRoute
}

// RouteConfiguration returns the route configuration c evaluates. Do not modify it.
func (c *Config) RouteConfiguration() *routev3.RouteConfiguration { return c.routes }

// Filters returns the rate-limit filters c evaluates, in filter order. Do not modify them.
func (c *Config) Filters() []Filter { return c.filters }

// New checks a route configuration and its rate-limit filters and returns their Config.
// With no filters, one filter named DefaultFilterName with Options.Domain is assumed. A
// configuration Envoy would reject, or that uses a field whose behaviour rlpkit does not
// model, is an error naming the field.
func New(rc *routev3.RouteConfiguration, filters []Filter, o Options) (*Config, error) {
	if len(filters) == 0 {
		if o.Domain == "" {
			return nil, ErrNoDomain
		}
		filters = []Filter{{Name: DefaultFilterName, Config: &ratelimitv3.RateLimit{Domain: o.Domain}}}
	}
	c := &Config{routes: rc, filters: filters, opts: o, re: map[string]*regexp.Regexp{},
		perFC:   map[*routev3.Route]map[string]*ratelimitv3.RateLimitPerRoute{},
		vhPerFC: map[*routev3.VirtualHost]map[string]*ratelimitv3.RateLimitPerRoute{}}
	ck := &checker{c: c}
	ck.check()
	if err := ck.err(); err != nil {
		return nil, err
	}
	return c, nil
}

// Domains returns the rate-limit domains the configuration may send: those of its filters,
// then those its RateLimitPerRoute entries set, each once, in that order.
func (c *Config) Domains() []string {
	var out []string
	add := func(d string) {
		if d != "" && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	for _, f := range c.filters {
		add(f.Config.GetDomain())
	}
	for _, m := range c.rcPerFC {
		add(m.GetDomain())
	}
	for _, vh := range c.routes.VirtualHosts {
		for _, pr := range c.vhPerFC[vh] {
			add(pr.GetDomain())
		}
		for _, r := range vh.Routes {
			for _, pr := range c.perFC[r] {
				add(pr.GetDomain())
			}
		}
	}
	return out
}
