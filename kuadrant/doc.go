// Package kuadrant computes what kuadrant-operator v1.5.2 deploys for kuadrant.io/v1
// RateLimitPolicies: the effective policy of every path through the Gateways, each
// policy's status, and per Gateway the wasm-shim v0.14 configuration (package wasmshim)
// and the Limitador limits (package limit/limitador's format).
//
// It is for checking policies before they reach a cluster: rlpkit compile prints its
// Result, rlpkit descriptors evaluates the configuration for a request (or gRPC call), and
// rlpkit serve enforces the limits. It writes no statuses; apim.kuadrant.io/v1alpha1 is
// package merge's. API is the package as a policyapi.API, the contract the CLI uses.
//
// # Paths and effective policies
//
// A path is GatewayClass -> Gateway -> listener -> HTTPRoute or GRPCRoute -> rule (Paths). A
// route is on a listener when one of its parentRefs names the Gateway and, when set, the
// listener's name and port, as policy-machinery links them (allowedRoutes is not
// consulted). The policies on a path are ordered least specific first (Gateway,
// listener, route, rule; on one target oldest first, then by namespace/name) and folded
// from the most specific outwards with the strategy of the policy merged in
// (AtomicDefaults, AtomicOverrides, MergeDefaults, MergeOverrides), so the most specific
// default and the least specific override win. A policy's rules are its limits by name
// plus one rule for its top-level when; every rule keeps its source policy.
//
// # Output
//
// One action set per path, hostname and route match, named by the SHA-256 of
// "pathID|matchIndex+1|hostname"; its conditions are the hostname and the match's
// predicates: method, path (a rule without matches, or a match without a path, is
// PathPrefix "/"), headers, query parameters; a GRPCRoute's method match reads the call's
// HTTP/2 path (== '/svc/method', startsWith('/svc/'), or matches()), then its headers. Each
// path's limits become one ratelimit-service action scoped to the route, a conditionalData
// block per limit (its id "1" and its counters), sorted by joined predicates. Action sets
// are in the operator's order (a GRPCRoute match as the path its method stands for):
// hostname, path kind and length, method, header and query counts, route age. Limitador
// gets one limit per (limit, rate) in the route's namespace: a Gateway's counts per route.
//
// # TokenRateLimitPolicy
//
// TokenRateLimitPolicies (kuadrant.io/v1alpha1) fold along the HTTPRoutes' paths (the
// operator's, not GRPCRoutes') apart from RateLimitPolicies, into the same action sets:
// per token limit a ratelimit-check-service action (hits_addend "0") then a
// ratelimit-report-service action (responseBodyJSON("/usage/total_tokens")), keyed
// "tokenlimit.<name>__<8 hex>", before the RateLimitPolicy's action unless they read
// "auth."; Limitador gets one limit per rate. A partly overridden one is Enforced False,
// Unknown, naming each overridden rule (sorted; the operator's order is a map's).
//
// Statuses are those the operator reports once its components are ready: Accepted
// (Accepted, TargetNotFound, Invalid) and Enforced (Enforced fully or partially,
// Overridden naming the overriding policies, Unknown when on no path with a route,
// InvalidCelExpression).
//
// # Predicates
//
// As in the operator, predicates do not make a policy invalid: effective policies are
// computed with every accepted policy in place, then each path's action is checked as the
// operator checks it (wasmshim.OperatorCheck: request, source, destination and connection
// untyped, auth declared only with an AuthPolicy on the path). A failing action is
// dropped, so its path gets no action set and is not limited at all, while its Limitador
// limits are still written. A policy none of whose rules is in effect is Overridden or
// Unknown; one in effect on some path is InvalidCelExpression when the check failed on any
// path it is on, with the operator's message ("validation issues: [...]", cel-go's error
// per path). rlpkit's stricter check (wasmshim.CheckPredicate, the attributes typed as
// Kuadrant documents them, so that source.id or request.metod is caught) gives warnings.
//
// # Where it differs from kuadrant-operator
//
//   - Every Gateway of the inputs gets a GatewayConfig, with no action sets when no policy
//     reaches it; the operator writes no WasmPlugin then.
//   - An HTTPRoute and a GRPCRoute of one namespace/name keep apart paths (the operator's
//     path IDs collide).
//   - AuthPolicies are read only for where they attach (a valid one with rules, its target
//     among the inputs, declares auth on its paths); their merging is not computed and the
//     auth action itself is not written, so action sets hold rate-limit actions only.
//   - The InvalidCelExpression message lists the failures in path order (the order of
//     Paths); the operator lists them in the order it iterates a map of paths.
//   - Header and query-parameter matches of type RegularExpression (a GRPCRoute's too)
//     become matches() predicates; a quote or backslash in a match value is escaped so
//     that the predicate stays valid CEL (a regular expression's "\." included).
//   - conditionalData blocks are sorted by their predicates joined without a separator;
//     ties keep limit-name order.
//   - Rates above 4294967295 are clamped to it (package limit/limitador counts in uint32).
package kuadrant
