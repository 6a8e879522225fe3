package envoyroute

import (
	"fmt"
	"strconv"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	ratelimitv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ratelimit/v3"

	"github.com/rlpkit/rlpkit/rlsmsg"
)

// Evaluation is what Envoy does with a request: the virtual host and route it takes and
// the calls its rate-limit filters make.
type Evaluation struct {
	// VirtualHost is the name of the virtual host chosen and Domain the domain that chose
	// it; both empty when none serves the request's authority (Envoy answers 404).
	VirtualHost, Domain string
	// Route is the route matched; nil when none.
	Route *routev3.Route
	// Calls are the calls of the rate-limit filters when the request arrives, in filter
	// order, each with at least one descriptor.
	Calls []Call
	// Done are the descriptors of rate limits with apply_on_stream_done, sent when the
	// response is done, one call per filter.
	Done []Call
	// Trace tells, line by line, how the route and every descriptor were chosen; none from
	// Decide.
	Trace []string

	quiet bool // no Trace, no Sources
}

// Call is one call of a rate-limit filter to its rate-limit service.
type Call struct {
	// Filter is the filter's name.
	Filter string
	// Request is the RateLimitRequest: the filter's domain (or the route's override), the
	// descriptors, the request's cost.
	Request rlsmsg.Request
	// Sources name, per descriptor, the rate limit it comes from:
	// "virtual_hosts[0].routes[2].route.rate_limits[1]"; none from Decide.
	Sources []string
	// FromResponse marks a call made when the stream is done whose costs the response
	// wrote (Response); the filter's other stream-done descriptors are in a call of their
	// own.
	FromResponse bool
}

// Evaluate returns what Envoy does with req: the virtual host and route, and the
// descriptors every rate-limit filter sends, with the trace of how. It calls no service.
//
// Each RateLimit gives one descriptor, its actions' entries in order: source_cluster
// (Options.SourceCluster), destination_cluster (the route's cluster, or the value of its
// cluster_header), request_headers (the first value; skip_if_absent appends nothing
// instead of dropping the descriptor), remote_address and masked_remote_address (default
// masks 32 and 128, written as a CIDR range "10.0.0.0/24"), generic_key (key
// "generic_key" by default), header_value_match ("header_match"), query_parameters,
// query_parameter_value_match ("query_match"), dynamic_metadata and metadata (a non-empty
// string value, else default_value, else nothing; source ROUTE_ENTRY reads the route's
// filter_metadata). An action that cannot produce its entry drops the whole descriptor.
// hits_addend gives the descriptor's cost (a number, or %DYNAMIC_METADATA(ns:key...)%: a
// number or numeric string from 0 to 1e9, else the descriptor is dropped); limit with
// dynamic_metadata gives its override (a struct of a number requests_per_unit and a unit
// name; anything else, none). A filter with no descriptor makes no call. Rate limits with
// apply_on_stream_done go to Evaluation.Done.
func (c *Config) Evaluate(req *Request) *Evaluation { return c.evaluate(req, &Evaluation{}) }

// Decide is Evaluate without Trace and Sources, for replays of many requests.
func (c *Config) Decide(req *Request) *Evaluation {
	return c.evaluate(req, &Evaluation{quiet: true})
}

func (c *Config) evaluate(req *Request, ev *Evaluation) *Evaluation {
	q := prepare(req)
	vh, domain := c.hosts.find(req.Authority)
	if vh == nil {
		if !ev.quiet {
			ev.tracef("no virtual host serves authority %q: Envoy answers 404, no rate limit", req.Authority)
		}
		return ev
	}
	vi := c.vhIndex(vh)
	ev.VirtualHost, ev.Domain = vh.Name, domain
	if proto := q.forwardedProto(); vh.RequireTls != routev3.VirtualHost_NONE && proto != "" && proto != "https" {
		if !ev.quiet {
			ev.tracef("virtual host %s requires TLS (require_tls %s): Envoy redirects the %s request to https, no rate limit", vh.Name, vh.RequireTls, proto)
		}
		return ev
	}
	ri := -1
	for i, r := range vh.Routes {
		if c.routeMatches(r.Match, q) {
			ri = i
			break
		}
	}
	if ri < 0 {
		if !ev.quiet {
			ev.tracef("virtual host %s (domain %s): no route matches %s %s: Envoy answers 404, no rate limit", vh.Name, domain, req.Method, req.Path)
		}
		return ev
	}
	r := vh.Routes[ri]
	ev.Route = r
	if !ev.quiet {
		ev.tracef("virtual host %s (domain %s), route %s", vh.Name, domain, routeName(r, vi, ri))
	}
	if r.GetRoute() == nil {
		if !ev.quiet {
			ev.tracef("the route does not forward (a redirect or direct response): the rate-limit filter does nothing")
		}
		return ev
	}
	if h := r.GetRoute().GetClusterHeader(); h != "" && len(q.header(h)) == 0 {
		if !ev.quiet {
			ev.tracef("the route's cluster header %s is absent: Envoy finds no cluster, and its rate-limit filter does nothing", h)
		}
		return ev
	}
	for _, f := range c.filters {
		c.filterCalls(ev, &f, vh, vi, r, ri, q)
	}
	return ev
}

func (ev *Evaluation) tracef(format string, a ...any) {
	if ev.quiet {
		return
	}
	ev.Trace = append(ev.Trace, fmt.Sprintf(format, a...))
}

func routeName(r *routev3.Route, vi, ri int) string {
	if r.Name != "" {
		return fmt.Sprintf("%q (virtual_hosts[%d].routes[%d])", r.Name, vi, ri)
	}
	return fmt.Sprintf("virtual_hosts[%d].routes[%d]", vi, ri)
}

func (c *Config) vhIndex(vh *routev3.VirtualHost) int {
	for i, v := range c.routes.VirtualHosts {
		if v == vh {
			return i
		}
	}
	return -1
}

// perRoute returns a filter's most specific RateLimitPerRoute: the route's, the virtual
// host's, the route configuration's; nil when none.
func (c *Config) perRoute(name string, vh *routev3.VirtualHost, r *routev3.Route) (*ratelimitv3.RateLimitPerRoute, string) {
	if pr := c.perFC[r][name]; pr != nil {
		return pr, "route"
	}
	if pr := c.vhPerFC[vh][name]; pr != nil {
		return pr, "virtual host"
	}
	if pr := c.rcPerFC[name]; pr != nil {
		return pr, "route configuration"
	}
	return nil, ""
}

// origin says which list of rate limits a source is in: a RateLimitPerRoute's of level
// ("route", "virtual host", "route configuration") for filter name, a filter's own, a
// route's (vi, ri) or a virtual host's (vi).
type origin struct {
	kind        uint8 // originPerRoute, originFilter, originRoute, originVirtualHost
	vi, ri      int
	level, name string
}

const (
	originPerRoute = iota
	originFilter
	originRoute
	originVirtualHost
)

// String names the list: "virtual_hosts[0].routes[2].route.rate_limits".
func (o origin) String() string {
	switch o.kind {
	case originPerRoute:
		return perRoutePath(o.level, o.vi, o.ri, o.name)
	case originFilter:
		return "http_filters[" + o.name + "].rate_limits"
	case originRoute:
		return fmt.Sprintf("virtual_hosts[%d].routes[%d].route.rate_limits", o.vi, o.ri)
	}
	return fmt.Sprintf("virtual_hosts[%d].rate_limits", o.vi)
}

// source is one rate limit with what names it: its list and index.
type source struct {
	rl     *routev3.RateLimit
	prefix origin
	i      int
}

// path names the rate limit: "virtual_hosts[0].rate_limits[1]".
func (s source) path() string { return s.prefix.String() + "[" + strconv.Itoa(s.i) + "]" }

func sources(rls []*routev3.RateLimit, prefix origin) []source {
	out := make([]source, len(rls))
	for i, rl := range rls {
		out[i] = source{rl, prefix, i}
	}
	return out
}
