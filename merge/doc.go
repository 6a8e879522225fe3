// Package merge is the controller half of rlpkit: it attaches HTTPRoutes to Gateways the way
// Gateway API does, merges the RateLimitPolicies along Gateway -> HTTPRoute, and compiles,
// per Gateway, the PluginConfig its rate-limit filter consumes and the limits its rate-limit
// service enforces, with every policy's status and the origin of every effective piece.
//
// It is pure: it reads a policy.Set and returns values; it does not watch a cluster or write
// status back (a controller does; see examples/controller). API is the package as a
// policyapi.API (apim.kuadrant.io/v1alpha1), the contract the CLI and policytest use.
//
// # Attachment and hostnames
//
// A route attaches to a Gateway through its parentRefs (group and kind default to Gateway,
// namespace to the route's; sectionName and port select listeners) on HTTP and HTTPS
// listeners whose allowedRoutes admit it: namespaces Same (the default), All, or Selector
// matched against the labels of the Namespace objects given (every namespace also carries
// kubernetes.io/metadata.name, as in a cluster), and kinds including HTTPRoute (the default
// for HTTP and HTTPS). Through each listener the route serves the Gateway API intersection of
// its hostnames with the listener's (IntersectHostnames); a route attached through several
// listeners serves the union, and a route whose hostnames intersect no listener is not
// attached. Objects with validation problems take no part.
//
// # Precedence and merging
//
// For each (Gateway, attached HTTPRoute), Precedence orders the sections Gateway override >
// HTTPRoute override > HTTPRoute default > Gateway default, and two strategies, plain
// functions chosen in Options, merge them: AggregateActions keeps every gateway action in
// that order, dropping an action equivalent to one already kept
// (descriptor.GatewayAction.Equivalent: "rules: []" and no rules, "expect_match: true" and
// none, "descriptor_key: generic_key" and none are one action), so that no descriptor is sent
// and counted twice; PatchLimits keeps one rate limit per patch key
// (policy.RateLimitSpec.PatchKey: seconds, conditions as a set, variables as a set, in the
// canonical form package limit/limitador gives a limit's identity, so "k == v" and "k == 'v'", or
// "descriptors[0].user" and "user", patch each other), the highest section's, in precedence
// then declaration order. A route without a policy gets its Gateway's. When several
// policies target one object, the oldest (creationTimestamp, then namespace/name) is used and
// the others are Conflicted.
//
// # Output
//
// Per Gateway (sorted by namespace/name), one PluginConfig policy per attached route with any
// effective configuration, ordered oldest route first, then namespace/name: name
// "routeNs/routeName", rateLimitDomain "gatewayNs/gatewayName#routeNs/routeName", the route's
// hostnames there, sorted; and the limits in limitador's format, each in the namespace of its
// route's domain and named after its origin ("ns/policy spec.default.rateLimits[0]").
// Statuses: Accepted (Accepted, Conflicted, Invalid, TargetNotFound) and, for accepted
// policies, Enforced (Enforced, PartiallyEnforced, Overridden, Unused) with a message naming
// what replaced what, on which route. The same objects in any order give identical output.
//
// # Warnings
//
// Diagnose (and Compile, as Result.Warnings) reports what is valid but most likely a
// mistake, each Warning naming where its object was read, the object, the field path, the
// reason and what to do (Diagnose lists them).
//
// # One bad policy does not take down every Gateway
//
// Validation (package policy) rejects everything the rate-limit filter and service would
// reject, so valid objects always compile; a property test checks it on random topologies
// and policies, in shuffled orders. Compile still checks the configuration compiled for each
// route as package descriptor and package limit/limitador will, for Sets built in code without
// validation and for custom strategies: a problem in an effective gateway action or rate
// limit is blamed on the policy it came from, any other on every policy merged for the
// route. Such a policy is Accepted=False with reason Invalid and a message naming the
// problems in its own fields ("spec.default.rateLimits[1].seconds: must be greater than 0"),
// the route and Gateway, and what to do; it is left out everywhere (the next oldest policy of
// its target, if any, is used instead) and everything else compiles. Compile returns an error
// only for duplicated objects in a Set built in code.
//
// # Where it differs from upstream
//
//   - Each compiled policy carries routeMatches built from its HTTPRoute's rules (path Exact
//     and PathPrefix, method, headers), so that routes sharing a hostname no longer shadow
//     each other in the filter. A route with a rule that matches everything, or with a
//     RegularExpression path (which the filter cannot express), gets none and matches every
//     request of its hostnames; query parameter matches are left out, so routeMatches admit
//     at least what the route does. The filter picks the first policy in PluginConfig order
//     whose routeMatches match, that is the oldest route; Gateway API would first prefer the
//     route with the more specific match, so overlapping matches of routes sharing a hostname
//     can resolve differently.
//   - Status messages name what replaced what, and warnings say why a route or a policy
//     applies to no request; upstream leaves both to the implementation.
package merge
