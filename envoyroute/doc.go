// Package envoyroute evaluates an Envoy route configuration (go-control-plane's route v3
// types) as Envoy's router and rate-limit filter (envoy.filters.http.ratelimit) do: for a
// request, the virtual host, the route, and the RateLimitRequest each rate-limit filter
// sends. It is what lets "rlpkit test" and "rlpkit simulate" run an Envoy configuration
// written by hand, or the output of "rlpkit compile -o envoy", against an
// envoyproxy/ratelimit configuration (package limit/envoyratelimit) or Limitador limits.
// It calls no service and keeps no state.
//
// # Inputs
//
// Decode reads one JSON document (YAML converted, Envoy's snake_case field names) of three
// shapes (Shape): a RouteConfiguration, the {route_configuration, http_filters} package
// envoyxds renders, or the {gateways: [{gateway, envoy}]} of "rlpkit compile -o envoy"
// (Options.Gateway picks one when there are several). Only the http_filters of type
// envoy.extensions.filters.http.ratelimit.v3.RateLimit are read; without any, one filter
// named envoy.filters.http.ratelimit with Options.Domain is assumed. Per-route
// configuration of filters rlpkit does not link is skipped. New takes the messages instead.
// What Envoy would reject (a domain written twice, a stage above 10, an invalid regular
// expression) and what rlpkit does not model is an error naming the field, so that a test
// never silently runs a configuration other than the one Envoy runs.
//
// # Virtual hosts and routes
//
// As Envoy's RouteMatcher: the :authority, without its port when
// ignore_port_in_host_matching is set, lower-cased (ASCII), matches an exact domain, else
// the longest suffix wildcard ("*.example.com", "*-bar.example.com"), else the longest prefix
// wildcard ("example.*"), else "*"; a wildcard matches at least one character. The first
// route of the virtual host whose match admits the request is taken: prefix, path,
// path_separated_prefix (the prefix followed by the end or "/") and safe_regex (a full
// match, ignoring case_sensitive) against the path without its query string, case_sensitive
// for the others (default true); grpc (content-type application/grpc); headers
// (exact_match, safe_regex_match, range_match, present_match, prefix/suffix/contains_match,
// string_match with ignore_case, invert_match, treat_missing_header_as_empty; the values of
// a repeated header joined with ","); query_parameters (the first value of the parameter,
// percent-decoded, "+" a space; string_match, or present_match comparing presence as
// Envoy's enable_new_query_param_present_match_behavior does). A route that does not
// forward (redirect, direct_response) is not rate-limited, nor is one whose cluster_header
// is absent (Envoy finds no cluster); every cluster a route names is assumed to exist. A
// virtual host with require_tls redirects a request whose x-forwarded-proto (else :scheme)
// is not https, which is then not rate-limited either; one with neither is not redirected.
//
// # Rate limits
//
// Per filter, as Envoy's filter chooses them: the rate_limits of the most specific
// RateLimitPerRoute (route, virtual host, route configuration) replace every other; else the
// filter's own rate_limits; else the route's rate_limits of the filter's stage, followed by
// the virtual host's when the route sets include_vh_rate_limits or its RateLimitPerRoute
// says vh_rate_limits INCLUDE, or, by default (OVERRIDE), when the route has none; IGNORE
// leaves them out. A RateLimitPerRoute's domain replaces the filter's.
//
// Each RateLimit gives one descriptor, its actions' entries in order (Evaluate lists the
// actions and how each reads the request); an action that cannot produce its entry drops
// the whole descriptor, and a filter with no descriptor makes no call. Rate limits with
// apply_on_stream_done go to Evaluation.Done, reading Envoy AI Gateway's token metadata
// from Request.Response.
//
// # Where rlpkit differs from Envoy
//
//   - disable_key is not read: rlpkit has no runtime, and Envoy's default enables the rate
//     limit. request_type, filter_enabled, failure_mode_deny and the runtime keys
//     ratelimit.http_filter_enabled/enforcing are not read either: every filter runs.
//   - The request is taken as the HTTP connection manager hands it to the router: its
//     settings (strip_any_host_port, normalize_path, merge_slashes,
//     path_with_escaped_slashes_action) are not in the route configuration, so give the
//     authority and path they leave, and the x-forwarded-proto it sets. require_tls
//     EXTERNAL_ONLY is taken as ALL: every request is taken as external.
//   - The remote address is the one given; Envoy's is the downstream address after its
//     X-Forwarded-For settings (use_remote_address, xff_num_trusted_hops).
//   - A destination_cluster action on a route that picks its cluster at random
//     (weighted_clusters) or by a plugin is an error in a route's rate limits and drops the
//     descriptor in a virtual host's: rlpkit cannot tell which cluster Envoy picks.
//   - Refused as not modelled: route matches on tls_context, runtime_fraction,
//     dynamic_metadata, filter_state, cookies, connect_matcher and path_match_policy; a
//     virtual host's matcher tree; VHDS; ignore_path_parameters_in_path_matching;
//     descriptor extensions; hits_addend formats other
//     than %DYNAMIC_METADATA(...)%; refunds (is_negative_hits).
//   - Regular expressions are Go's regexp, which has RE2's syntax; Envoy's program-size
//     limit is not applied.
package envoyroute
