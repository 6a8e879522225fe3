// Package envoyxds translates a PluginConfig (package descriptor) into configuration for
// Envoy's own HTTP rate-limit filter, envoy.filters.http.ratelimit, as go-control-plane
// v1.40.0 messages: for users who run that filter, as Envoy Gateway does, instead of a wasm
// filter. Configured with the output, Envoy sends the rate-limit service the same calls
// (domain, descriptors with their entries, limit override and cost) that package descriptor
// generates from the PluginConfig. A test interprets the output with Envoy's semantics and
// checks exactly that, request by request; package envoyroute, which "rlpkit test" and
// "rlpkit simulate" evaluate Envoy configurations with, is held to the same interpreter.
//
// It is not an xDS server and does not build listeners, clusters or backends: Translate
// returns a RouteConfiguration and the HTTP filters to put in an HTTP connection manager, and
// Render prints them as JSON for `rlpkit compile -o envoy`.
//
// # Use
//
//	out, err := envoyxds.Translate(cfg, envoyxds.Options{
//		Route: func(policy int, r *routev3.Route) error { /* set r's action */ return nil },
//	})
//	js, err := out.Render() // deterministic JSON: {"route_configuration", "http_filters"}
//
// # Rules become routes, not header_value_match actions
//
// The Kuadrant proposal "RateLimitPolicy targeting a Gateway resource" suggests expressing
// a gateway action's rules as leading header_value_match actions on :path, :method and
// :authority. That is not faithful: a matching header_value_match action appends its own
// entry to the descriptor, so limits keyed on descriptor's entries would stop applying.
// Translate uses Envoy's route table instead: a rule's hosts are settled by the virtual host,
// its paths and methods become route matches (an exact path is "path", one ending in "*" a
// "prefix", a method a ":method" header matcher), and each route carries the rate limits of
// one set of gateway actions whose rules can match together, ordered from the largest sets
// to the smallest, so that each descriptor is sent once. Translate refuses a configuration
// needing more than Options.MaxRoutes routes in one virtual host. Options.Route sets each
// route's action; without it a route forwards to a cluster named after its policy.
//
// Every policy hostname and rule host is a domain of exactly one virtual host (with and
// without a trailing dot), with ignore_port_in_host_matching, so that Envoy's choice of
// virtual host is descriptor's choice of hostname. Envoy does not fall back to another
// virtual host when no route matches, where descriptor tries the policies of less specific
// hostnames, so a virtual host holds the routes of every policy descriptor may try for its
// domains, in descriptor's order.
//
// Each route sets its policy's domain and rate limits in a RateLimitPerRoute, the only place
// where Envoy accepts both a limit override and a cost; there is one filter per distinct
// upstreamCluster (FilterName, or "envoy.filters.http.ratelimit/CLUSTER" when there are
// several), so the filters must keep their names. RateLimit.limit inside a
// RateLimitPerRoute needs an Envoy of the v1.40 API or later (envoyproxy/envoy#45613).
// Actions map one to one (generic_key, request_headers, remote_address, metadata,
// header_value_match); a limit becomes RateLimit.limit from dynamic metadata, a cost
// RateLimit.hits_addend, a number or "%DYNAMIC_METADATA(namespace:key1:key2)%".
//
// # Refusals and caveats
//
// Translate returns a fielderr.List of refusals naming fields: an invalid PluginConfig, a
// hits_addend above MaxHitsAddend (1e9), a cost metadata key the %DYNAMIC_METADATA% format
// cannot name, too many routes, and, with Options.Strict, every caveat. Where Envoy behaves
// differently from descriptor it reports a caveat (Output.Caveats): a cost from dynamic
// metadata that is absent, not a number, negative or above 1e9 drops the descriptor in
// Envoy (descriptor charges 1), and ROUTE_ENTRY metadata reads the matched route's metadata,
// which the generated routes carry only when Options.Route sets it. Requests without a Host,
// CONNECT requests and OPTIONS * match no generated route, so Envoy does not limit them where
// descriptor would apply unconditional actions; regular expressions pass through to RE2,
// which by default rejects programs larger than 100.
//
// # Output format
//
// Marshal and Render write protojson with Envoy's field names (snake_case), compact and then
// re-indented with encoding/json, since protojson's own indentation varies between builds:
// the bytes are the same for the same input, run after run.
package envoyxds
