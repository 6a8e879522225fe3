package envoyxds

// This file, envoysim_match_test.go and envoysim_ratelimit_test.go are a small interpreter of
// the Envoy configuration Translate produces: given a request as Envoy's HTTP connection
// manager hands it to its filters, it picks the virtual host and the route as Envoy's router
// does, and builds the rate-limit service calls as Envoy's rate-limit filter does with a
// RateLimitPerRoute (envoy.filters.http.ratelimit, RateLimitConfig). It implements Envoy's
// semantics independently of package descriptor (the TestSimulator tests pin them down), and refuses,
// with an error, any configuration element it does not model, so that a translation cannot
// silently use one.

import (
	"fmt"
	"net/netip"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	ratelimitv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ratelimit/v3"
	"github.com/rlpkit/rlpkit/rlsmsg"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/structpb"
)

// envoyRequest is a request as Envoy's filters see it.
type envoyRequest struct {
	authority string
	method    string
	path      string              // :path, query string included; Envoy has removed any fragment
	headers   map[string][]string // lower-case names, values in order
	remote    netip.Addr          // the downstream address; invalid when it is not an IP (a pipe)
	dynamic   map[string]*structpb.Struct
	hits      uint32 // the "envoy.ratelimit.hits_addend" filter state; 0 when unset
}

// rlsCall is one call of a rate-limit filter to its service.
type rlsCall struct {
	Filter      string
	Cluster     string
	Domain      string
	Descriptors []simDescriptor
	HitsAddend  uint32
}

// simDescriptor is one RateLimitDescriptor of a call.
type simDescriptor struct {
	Entries    []rlsmsg.Entry
	Limit      *rlsmsg.Override
	HitsAddend *uint64
}

// header returns every value of a lower-case header name; pseudo-headers read the request.
func (r *envoyRequest) header(name string) []string {
	switch name {
	case ":authority":
		return nonEmpty(r.authority)
	case ":method":
		return nonEmpty(r.method)
	case ":path":
		return nonEmpty(r.path)
	}
	return r.headers[name]
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// simulate returns the rate-limit calls Envoy makes for req.
func simulate(out *Output, req *envoyRequest) ([]rlsCall, error) {
	rc := out.RouteConfiguration
	vh, err := findVirtualHost(rc, req.authority)
	if err != nil || vh == nil {
		return nil, err
	}
	var route *routev3.Route
	for _, r := range vh.Routes {
		ok, err := routeMatches(r.Match, req)
		if err != nil {
			return nil, fmt.Errorf("route %q: %w", r.Name, err)
		}
		if ok {
			route = r
			break
		}
	}
	if route == nil || route.GetRoute() == nil {
		return nil, nil // no route entry: the rate-limit filter does nothing
	}
	var calls []rlsCall
	for _, f := range out.HTTPFilters {
		fc := new(ratelimitv3.RateLimit)
		if err := f.GetTypedConfig().UnmarshalTo(fc); err != nil {
			return nil, fmt.Errorf("filter %q: %w", f.Name, err)
		}
		if err := supportedFilter(fc); err != nil {
			return nil, fmt.Errorf("filter %q: %w", f.Name, err)
		}
		var perRoute *ratelimitv3.RateLimitPerRoute
		// The most specific per-filter configuration wins: route, virtual host, route table.
		for _, m := range []map[string]*anypb.Any{route.TypedPerFilterConfig, vh.TypedPerFilterConfig, rc.TypedPerFilterConfig} {
			if a, ok := m[f.Name]; ok {
				perRoute = new(ratelimitv3.RateLimitPerRoute)
				if err := a.UnmarshalTo(perRoute); err != nil {
					return nil, fmt.Errorf("typed_per_filter_config[%q]: %w", f.Name, err)
				}
				break
			}
		}
		var configs []*routev3.RateLimit
		switch {
		case perRoute != nil && len(perRoute.RateLimits) > 0:
			configs = perRoute.RateLimits
		case len(fc.RateLimits) > 0:
			configs = fc.RateLimits
		case len(route.GetRoute().RateLimits) > 0 || len(vh.RateLimits) > 0:
			return nil, fmt.Errorf("route %q: route or virtual host rate_limits are not modelled", route.Name)
		}
		var descs []simDescriptor
		for i, rl := range configs {
			d, ok, err := populate(rl, req, route)
			if err != nil {
				return nil, fmt.Errorf("route %q, rate_limits[%d]: %w", route.Name, i, err)
			}
			if ok {
				descs = append(descs, d)
			}
		}
		if len(descs) == 0 {
			continue // no descriptor: the filter does not call the service
		}
		domain := fc.Domain
		if perRoute != nil && perRoute.Domain != "" {
			domain = perRoute.Domain
		}
		calls = append(calls, rlsCall{
			Filter:      f.Name,
			Cluster:     fc.GetRateLimitService().GetGrpcService().GetEnvoyGrpc().GetClusterName(),
			Domain:      domain,
			Descriptors: descs,
			HitsAddend:  req.hits,
		})
	}
	return calls, nil
}

// supportedFilter refuses filter settings that change when or how descriptors are sent.
func supportedFilter(fc *ratelimitv3.RateLimit) error {
	switch {
	case fc.Stage != 0:
		return fmt.Errorf("stage is not modelled")
	case fc.RequestType != "" && fc.RequestType != "both":
		return fmt.Errorf("request_type is not modelled")
	case fc.FilterEnabled != nil:
		return fmt.Errorf("filter_enabled is not modelled")
	case fc.GetRateLimitService().GetTransportApiVersion() != corev3.ApiVersion_V3:
		return fmt.Errorf("the rate-limit service must use transport API v3")
	}
	return nil
}
