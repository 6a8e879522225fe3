// Package kuadrant computes what kuadrant-operator v1.5.2 deploys for kuadrant.io/v1
// RateLimitPolicies, TokenRateLimitPolicies and AuthPolicies: the effective policy of every
// path through the Gateways, each policy's status, and per Gateway the wasm-shim v0.14
// configuration (package wasmshim) and the Limitador limits (package limit/limitador).
//
// It is for checking policies before they reach a cluster: rlpkit compile prints its
// Result, rlpkit descriptors evaluates the configuration for a request (or gRPC call), and
// rlpkit serve enforces the limits. It does not talk to a cluster, write statuses, or write
// Authorino's AuthConfigs; apim.kuadrant.io/v1alpha1 is package merge's. API is the
// package as a policyapi.API, the contract the CLI and policytest use.
//
// # Paths and effective policies
//
// A path is GatewayClass -> Gateway -> listener -> HTTPRoute or GRPCRoute -> rule (Paths),
// linked as policy-machinery links them (allowedRoutes is not consulted). The policies of
// one kind on a path are ordered least specific first (Gateway, listener, route, rule; on
// one target oldest first, then namespace/name) and folded from the most specific outwards
// with the strategy of the policy merged in (AtomicDefaults, AtomicOverrides,
// MergeDefaults, MergeOverrides): the most specific default and the least specific
// override win. A RateLimitPolicy's rules are its limits by name plus one rule for its
// top-level when; an AuthPolicy's are keyed as the operator keys them
// (kuadrantv1.AuthPolicy.RuleKeys). Every rule keeps its source policy. The three kinds
// fold apart; TokenRateLimitPolicies reach HTTPRoutes only, as in the operator.
//
// # Output
//
// One action set per path, hostname and route match, named by the SHA-256 of
// "pathID|matchIndex+1|hostname", conditioned on the hostname and the match's predicates
// (a GRPCRoute's method match reads the call's HTTP/2 path: == '/svc/method',
// startsWith('/svc/') or matches()), ordered by Gateway API precedence (a GRPCRoute match
// as the path its method stands for). Its actions, in the operator's order: the auth
// action (auth-service, scope the hex SHA-256 of the path id, which names the path's
// AuthConfig; predicates the effective AuthPolicy's when; sources its rules' policies) on a
// path with an AuthPolicy; then the RateLimitPolicy action (ratelimit-service, scoped to
// the route, one conditionalData block per limit sorted by joined predicates) and the
// TokenRateLimitPolicy actions (per limit a check, hits_addend "0", then a report,
// responseBodyJSON("/usage/total_tokens")), each group put before the rest unless it reads
// "auth.". Limitador gets one limit per (limit, rate) in the route's namespace.
//
// # Predicates and statuses
//
// Predicates do not make a policy invalid: effective policies are computed with every
// accepted policy in place, then each path's actions are checked as the operator checks
// them (wasmshim.OperatorCheck: request, source, destination and connection untyped; auth
// declared only when an accepted AuthPolicy is on the path). A failing action is dropped,
// its Limitador limits still written. Statuses are those the operator reports: Accepted
// (Accepted, TargetNotFound, Invalid) and Enforced (Enforced fully or partially,
// Overridden naming the overriding policies, Unknown on no path with a route,
// InvalidCelExpression quoting cel-go). A TokenRateLimitPolicy partly overridden is
// Unknown naming each rule. rlpkit's stricter check (wasmshim.CheckPredicate) gives
// warnings, as does a target not found (with the likely names).
//
// An AuthPolicy's Enforced waits, in the operator, for Authorino to be ready and for the
// AuthConfig of every path it is in effect on to be Ready in the cluster. rlpkit assumes
// both ready, and does not check the rules themselves. Requests are taken as
// authenticated, with the auth.* attributes they carry.
//
// # Where it differs from kuadrant-operator
//
//   - Every Gateway of the inputs gets a GatewayConfig, with no action sets when no policy
//     reaches it; the operator writes no WasmPlugin then.
//   - An HTTPRoute and a GRPCRoute of one namespace/name keep apart paths (the operator's
//     path IDs collide).
//   - Overridden and InvalidCelExpression messages list policies sorted and failures in
//     path order; the operator's order is that of a map. conditionalData blocks sort by
//     predicates joined without a separator, ties in limit-name order.
//   - An atomic default of an AuthPolicy whose merged rules are only patterns and a when
//     counts as not empty here; the operator would take the less specific one. No valid
//     AuthPolicy merges into that.
//   - Header and query-parameter matches of type RegularExpression (a GRPCRoute's too)
//     become matches() predicates; a quote or backslash in a match value is escaped to keep
//     the CEL valid (a regular expression's "\." included).
//   - Rates above 4294967295 are clamped to it (package limit/limitador counts in uint32).
package kuadrant
