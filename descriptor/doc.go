// Package descriptor turns HTTP requests into Envoy Rate Limit Service (RLS) descriptors, the
// way a rate-limit filter in Envoy does, from a PluginConfig compiled by a controller.
//
// It is the filter half of rlpkit: it imports only the standard library, hostindex, rlsmsg
// (the request it produces) and fielderr, and builds for GOOS=wasip1 GOARCH=wasm, so a
// proxy-wasm filter can import it. It does not call the rate-limit service and does not
// enforce limits (see package limit and its formats).
//
// # Use
//
//	cfg, err := descriptor.Decode(jsonBytes) // strict; YAML: convert with yamljson first
//	engine, err := descriptor.Compile(cfg)   // validates; immutable, safe for concurrent use
//	req := fromhttp.Request(r)               // package fromhttp; or fill a Request from the proxy's own headers
//	var res descriptor.Result
//	engine.GenerateInto(&req, &res)          // allocation-free once res is warm
//	if res.ShouldCall() { /* send res.Domain, res.Descriptors to the RLS */ }
//
// # Semantics
//
// Generation follows the WASM-SHIM section of the Kuadrant proposal "RateLimitPolicy
// targeting a Gateway resource":
//
//  1. The policy is chosen by the request's Host: hostname patterns are walked from the most
//     specific (exact, then longer wildcard suffixes, then "*"), and the first policy, in
//     PluginConfig order, whose routeMatches admit the request is used. No policy: no
//     descriptors, and the service is not called.
//  2. A gateway action applies when it has no rules or any rule matches; a rule matches when
//     each of its non-empty fields (paths, methods, hosts) has a matching element.
//  3. Each configuration of an applying gateway action yields at most one descriptor, its
//     actions appending entries in order. If an action cannot append its entry (absent header
//     without skip_if_absent, absent metadata without default_value or skip_if_absent, no
//     client IP, header_value_match not matching), that configuration yields no descriptor;
//     the others are unaffected.
//
// Actions keep Envoy's semantics (envoy.config.route.v3.RateLimit.Action): generic_key's key
// defaults to "generic_key" and header_value_match's to "header_match"; request_headers reads
// the first value of a header; metadata counts only a non-empty string value;
// header_value_match ANDs its matchers, compares repeated headers joined with ",", and treats
// an absent header as Envoy's HeaderMatcher does (only present_match false, or an inverted
// present_match true, matches it). remote_address_match matches the client IP against CIDR
// ranges (its value may hold %DOWNSTREAM_REMOTE_ADDRESS_WITHOUT_PORT%, the only substitution
// read); query_parameter_value_match and query_parameters read the first value of a query
// parameter, percent-decoded with "+" as a space, and an absent parameter matches no
// matcher, as Envoy's QueryParameterMatcher.
//
// # Equivalent actions
//
// GatewayAction.Canonical writes a gateway action one way only: the defaults above applied
// (and metadata's source DYNAMIC, expect_match true, a header matcher without a match type
// present_match true), header names and rule hosts lower-cased, a rule's paths, methods and
// hosts sorted and deduplicated, rules dropped when one matches every request, and every empty
// list absent. GatewayAction.Equivalent compares canonical forms, so a controller merging
// actions written by different people (package merge) can keep one of two actions that yield
// the same descriptors instead of sending a descriptor twice and counting it twice.
//
// # Where it differs from upstream
//
//   - Per configuration, limit reads a limit override {requests_per_unit, unit} from dynamic
//     metadata (Envoy's RateLimit.limit) and hits_addend sets a cost (a number, or a number
//     from dynamic metadata; anything but a non-negative integer costs 1). The unit must be
//     one of SECOND, MINUTE, HOUR, DAY, MONTH, YEAR; Envoy would also accept UNKNOWN.
//   - hits_addend {response_body: {json_pointer: "/usage/total_tokens"}} charges a cost read
//     from the response (Result.ResponseCosts, UsageFromBody): the descriptor is checked at
//     cost 0 with the request, then sent again in a ShouldRateLimit to the same domain
//     charging the usage, as Envoy Gateway's cost.response does; Envoy has no such source.
//   - A policy may carry routeMatches (Gateway API HTTPRouteMatch: path Exact or PathPrefix
//     with segment semantics, method, headers Exact or RegularExpression), so that routes
//     sharing a hostname no longer shadow each other. Without it, behaviour is the proposal's.
//   - The older PluginConfig schema (failure_mode_deny, ratelimitpolicies map, operations,
//     global_actions) is decoded and converted: policies in name order, each legacy rule a
//     gateway action, global_actions a last gateway action without rules. Validation errors
//     of a converted configuration name the fields of the current schema.
//   - Pseudo-headers (":path", ":method", ":authority") read the request line, as in Envoy's
//     header map; there is no ":scheme".
package descriptor
