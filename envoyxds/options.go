package envoyxds

import (
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
)

const (
	// FilterName is the name of Envoy's HTTP rate-limit filter, and the name Translate gives
	// the filter when every policy uses the same upstream cluster.
	FilterName = "envoy.filters.http.ratelimit"

	// DefaultRouteConfigName names the RouteConfiguration when Options.RouteConfigName is
	// empty.
	DefaultRouteConfigName = "rlpkit"

	// DefaultMaxRoutes bounds the routes of one virtual host when Options.MaxRoutes is 0.
	DefaultMaxRoutes = 4096

	// MaxHitsAddend is the largest cost Envoy accepts in RateLimit.hits_addend.
	MaxHitsAddend = 1_000_000_000
)

// Options tune Translate. The zero value is ready to use.
type Options struct {
	// RouteConfigName names the RouteConfiguration; empty means DefaultRouteConfigName.
	RouteConfigName string

	// Route, when set, completes every generated route before it is validated: it receives the
	// index of the policy the route belongs to (in PluginConfig.RateLimitPolicies) and the
	// route with its name, match and typed_per_filter_config set, and sets its action and
	// anything else the proxy needs (metadata for metadata actions with source ROUTE_ENTRY,
	// timeouts, ...). The route must keep a route action (Route.route): Envoy's rate-limit
	// filter does nothing on a route without one. Nil gives every route the action
	// DefaultRoute(name of its policy). Route is called once per route, from the goroutine
	// calling Translate.
	Route func(policy int, r *routev3.Route) error

	// MaxRoutes bounds the routes of one virtual host (a policy's rules may need many, see
	// the package documentation), and the (path, method) pairs Translate combines on the way;
	// 0 or less means DefaultMaxRoutes. A configuration that needs more is refused.
	MaxRoutes int

	// Strict refuses a configuration that has caveats instead of translating it.
	Strict bool
}

// DefaultRoute returns the action of a route when Options.Route is nil: forward to cluster,
// which Translate names after the route's policy (Policy.Name, or "rateLimitPolicies[i]"
// for an unnamed one).
func DefaultRoute(cluster string) *routev3.RouteAction {
	return &routev3.RouteAction{ClusterSpecifier: &routev3.RouteAction_Cluster{Cluster: cluster}}
}

// Output is the Envoy configuration equivalent to a PluginConfig.
type Output struct {
	// RouteConfiguration holds the virtual hosts and their routes, each route carrying its
	// rate limits in typed_per_filter_config. It sets ignore_port_in_host_matching, which the
	// translation relies on.
	RouteConfiguration *routev3.RouteConfiguration

	// HTTPFilters are the rate-limit filters, one per distinct upstream cluster in order of
	// first use, to place in the HTTP connection manager's http_filters before the router.
	HTTPFilters []*hcmv3.HttpFilter

	// Caveats lists where Envoy treats some inputs differently from package descriptor; see
	// Caveat. Empty when the translation is exact for every request.
	Caveats []Caveat
}
