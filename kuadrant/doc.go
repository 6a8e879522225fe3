// Package kuadrant computes what kuadrant-operator v1.5.2 deploys for kuadrant.io/v1
// RateLimitPolicies: the effective policy of every path through the Gateways, each
// policy's status, and per Gateway the wasm-shim v0.14 configuration (package wasmshim)
// and the Limitador limits (package limit/limitador's format).
//
// It is for checking policies before they reach a cluster: rlpkit compile
// prints its Result, rlpkit descriptors evaluates the configuration for a request, and
// rlpkit serve enforces the limits. It does not talk to a cluster and does not write
// statuses; the older apim.kuadrant.io/v1alpha1 API is package merge's. API is the
// package as a policyapi.API, the contract the CLI and policytest use.
//
// # Paths and effective policies
//
// A path is GatewayClass -> Gateway -> listener -> HTTPRoute -> rule (Paths). An HTTPRoute
// is on a listener when one of its parentRefs names the Gateway and, when set, the
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
// predicates (method, path, headers, query parameters; a rule without matches and a match
// without a path are PathPrefix "/", Gateway API's defaults). Each path's limits become one
// ratelimit-service action scoped to the route, with a conditionalData block per limit
// (its id "1" and its counters), sorted by joined predicates. Action sets are ordered by
// Gateway API precedence: hostname, path kind and length, route age. Limitador gets one
// limit per (limit, rate) in the route's namespace, so a Gateway's limit counts per route.
//
// # TokenRateLimitPolicy
//
// TokenRateLimitPolicies (kuadrant.io/v1alpha1) are folded along the same paths with the
// same strategies, apart from RateLimitPolicies (the two kinds never merge), and compiled
// into the same action sets: per token limit, by name, a ratelimit-check-service action
// (ratelimit.hits_addend "0") then a ratelimit-report-service action (hits_addend
// responseBodyJSON("/usage/total_tokens")), each with one conditionalData block, keyed by
// "tokenlimit.<name>__<8 hex>" (TokenLimitID). With no auth action (rlpkit reads no
// AuthPolicy) the operator's order is: token actions first, then the RateLimitPolicy's,
// unless either reads "auth." (then it goes after). Limitador gets one limit per rate in
// the route's namespace; the limit./tokenlimit. keys keep the two kinds' counters apart.
// Their statuses are the operator's for the kind: a partly overridden policy is Enforced
// False, reason Unknown, naming each overridden rule (sorted here; the operator's order
// is a map's) and the first policy in its place, and one whose rules an atomic policy
// replaced names every policy on the path, itself included.
//
// Statuses are those the operator reports once its components are ready: Accepted
// (Accepted, TargetNotFound, Invalid) and Enforced (Enforced fully or partially,
// Overridden naming the overriding policies, Unknown when on no path with a route).
//
// # Where it differs from kuadrant-operator
//
//   - Every Gateway of the inputs gets a GatewayConfig, with no action sets when no policy
//     reaches it; the operator writes no WasmPlugin then.
//   - GRPCRoutes are not read: a policy targeting one is TargetNotFound.
//   - A policy whose predicates read auth.* is left out with Enforced False,
//     InvalidCelExpression: rlpkit reads no AuthPolicy.
//   - Header and query-parameter matches of type RegularExpression become
//     matches() predicates; a quote or backslash in a match value is escaped so that the
//     predicate stays valid CEL.
//   - conditionalData blocks are sorted by their predicates joined without a separator;
//     ties keep limit-name order.
//   - Rates above 4294967295 are clamped to it (package limit/limitador counts in uint32).
package kuadrant
