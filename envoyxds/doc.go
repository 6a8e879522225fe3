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
// entry to the descriptor (Envoy has no action that only guards), so the service would
// receive entries descriptor never sends, and limits keyed on descriptor's entries would
// stop applying. Envoy's route table can express the
// rules without touching the descriptors, so Translate uses it:
//
//   - A rule's hosts are settled by the virtual host: every rule host is also a domain (see
//     below), and inside a virtual host each rule's hosts either match all its requests or
//     none.
//   - A rule's paths and methods become route matches: an exact path is "path", a path
//     ending in "*" is "prefix" (both ignore the query string, as descriptor does), and a
//     method is a ":method" header matcher. Several paths or methods give several routes.
//   - Each route carries the rate limits of one set S of gateway actions: those without
//     rules and those of S. It matches the requests the policy's route match and one rule of
//     each action of S match. Routes are ordered from the largest sets to the smallest, so the
//     first route that matches a request is one whose set is exactly the actions that apply
//     to it; each descriptor is therefore sent once, even when several rules of an action, or
//     of several actions, match the same request. Sets no request can match (disjoint
//     paths, different methods) get no route, nor do routes an earlier route shadows.
//
// The number of routes grows with the number of gateway actions whose rules can match one
// request together. Translate refuses a configuration needing more than Options.MaxRoutes
// (DefaultMaxRoutes) routes in one virtual host.
//
// The routes need an action. Options.Route sets it (and anything else, such as metadata);
// without it each route forwards to a cluster named after its policy. A proxy that already
// has routes for these hosts must take the generated matches and rate limits into its own
// route table, keeping their order.
//
// # Hostnames and virtual hosts
//
// Every policy hostname and rule host is a domain of exactly one virtual host, in the order
// first written (policies, then rule hosts), each followed by the same name with a trailing
// dot, which descriptor ignores and Envoy's domain matching does not. The route
// configuration sets ignore_port_in_host_matching, so that "example.com:8443" selects the
// virtual host of "example.com" as descriptor does. Envoy picks the most specific domain
// (exact, then the longest "*." suffix, then "*"), as descriptor walks hostname patterns;
// domains that select the same policies with the same rule outcomes share a virtual host.
//
// Envoy does not fall back to another virtual host when no route matches, while descriptor
// tries the policies of less specific hostnames when none of a hostname's policies' route
// matches admit a request. So a virtual host holds the routes of every policy descriptor may
// try for its domains, in descriptor's order, up to the first policy without route matches
// (which takes every request); a policy's last routes match every request of its route
// matches, so a request a policy takes never reaches the next policy's routes. A virtual
// host is named after those policies ("ns/a,ns/b"); policy names default to their field path.
//
// # Domains and upstream clusters
//
// Each route sets its policy's rate-limit domain and rate limits in a RateLimitPerRoute
// (typed_per_filter_config), which is the only place where Envoy accepts both a limit
// override and a cost (route and virtual host rate_limits ignore hits_addend), and which
// overrides the filter's domain, so policies with different domains share one filter. A
// filter instance talks to one rate-limit service, so there is one filter per distinct
// upstreamCluster: named FilterName when there is one, "envoy.filters.http.ratelimit/CLUSTER"
// otherwise; each route configures the filter of its policy's cluster by that name (so the
// filters must keep their names), and the other filters send nothing for it. A filter's own
// domain is that of the first policy using its cluster; it only applies to routes not
// generated here. failure_mode_deny is the PluginConfig's. RateLimit.limit inside a
// RateLimitPerRoute is honoured by Envoy since envoyproxy/envoy#45613, which the v1.40 API
// documents; older releases do not apply it, so run an Envoy of that API or later.
//
// # Actions, limit and cost
//
// Actions map one to one: generic_key, request_headers (skip_if_absent), remote_address,
// metadata (descriptor_key, metadata_key, default_value, source, skip_if_absent) and
// header_value_match (descriptor_key, descriptor_value, expect_match, headers). Header
// matchers use string_match, not the deprecated direct fields; descriptor's exact_match ""
// (any value of a present header, as Envoy's deprecated exact_match) becomes the regex
// "(?s).*", and an empty safe_regex_match (Envoy requires a non-empty one) an exact "".
// Header names are lower-cased. A configuration's limit becomes RateLimit.limit with a
// dynamic_metadata source; its hits_addend becomes RateLimit.hits_addend, a number or the
// format "%DYNAMIC_METADATA(namespace:key1:key2)%".
//
// # What Translate refuses
//
// Translate returns a fielderr.List of refusals, each a *fielderr.Error naming a field, for:
//
//   - an invalid PluginConfig (descriptor.Validate's errors);
//   - a hits_addend number above MaxHitsAddend (1e9), which Envoy rejects;
//   - a cost metadata key whose namespace or keys hold ":" or ")", which the
//     %DYNAMIC_METADATA(...)% format cannot name;
//   - a policy whose rules need more than Options.MaxRoutes routes in a virtual host, or
//     combine more than that many (path, method) pairs on the way there, which bounds the
//     work Translate does;
//   - with Options.Strict, every caveat.
//
// It also fails when Options.Route fails or removes the route action, or when the result
// does not pass go-control-plane's validation.
//
// # Where Envoy differs from descriptor
//
// Translate reports these as caveats (Output.Caveats), naming the field:
//
//   - Cost from dynamic metadata: Envoy drops the descriptor when the value is absent, not
//     a number or numeric string, negative or above 1e9, and truncates a fractional cost;
//     descriptor sends the descriptor with cost 1 in all those cases.
//   - metadata actions with source ROUTE_ENTRY read the metadata of the route Envoy matched:
//     the generated routes carry none unless Options.Route sets it (reported only when
//     Options.Route is nil).
//
// Not reported, because they concern malformed input or requests Envoy does not route:
//
//   - A limit override's unit may also be "UNKNOWN" for Envoy, and a requests_per_unit
//     outside the uint32 range is undefined in Envoy; descriptor attaches no override.
//   - Equivalence holds for Host values that are DNS names or IPv4 literals, with an
//     optional numeric port and one trailing dot. Requests without a Host, CONNECT requests
//     and paths not starting with "/" (OPTIONS *) match no generated route, so Envoy
//     rate-limits them not at all, where descriptor would apply unconditional actions.
//   - Envoy removes a URL fragment from :path on receipt, so neither filter sees one.
//   - Regular expressions: Envoy compiles them with RE2 and by default rejects any whose
//     program is larger than 100 (runtime key re2.max_program_size.error_level); descriptor
//     uses Go's regexp, with the same syntax. Translate passes the PluginConfig's
//     expressions through and writes none of its own but "(?s).*".
//
// # Output format
//
// Marshal and Render write protojson with Envoy's field names (snake_case). protojson's
// multi-line output varies its whitespace between builds on purpose, so they marshal
// compactly (protojson's field and map-key order is deterministic) and re-indent with
// encoding/json; the bytes are the same for the same input, run after run.
package envoyxds
