// Package envoygateway computes what Envoy Gateway v1.9 serves for its BackendTrafficPolicies
// (gateway.envoyproxy.io/v1alpha1, package egv1alpha1) over Gateway API Gateways,
// HTTPRoutes and GRPCRoutes: which policy every xDS route takes its rate limits from, the route's
// rate-limit actions (envoy.config.route.v3.RateLimit, one rate-limit filter per domain)
// and local rate limit, the configuration of the rate-limit service (envoyproxy/ratelimit's
// schema, one per domain) and each policy's conditions per ancestor; and it
// evaluates requests against that, as Envoy and envoyproxy/ratelimit would.
//
// It is for checking policies before they reach a cluster: rlpkit compile prints
// its Result and writes the rate-limit service's files (which
// cmd/ratelimit and rlpkit serve --ratelimit-config serve), rlpkit descriptors, test and
// simulate run requests through it. It does not talk to a cluster and writes no status.
// API is the package as a policyapi.API, the contract the CLI and policytest use.
//
// # Attachment and precedence
//
// Routes attach to listeners as package topology says (parentRefs with sectionName and
// port, allowedRoutes); a route's hostnames on a listener are Gateway API's intersection,
// without those another listener on its port names. Every match of every rule of a route
// is one xDS route per hostname, named httproute/<ns>/<name>/rule/<i>/match/<j>/<host>
// (dots as _), or grpcroute/... for a GRPCRoute, whose rule without matches is match -1
// and whose method match is a path match (/<service>/<method> exact, /<service> prefix,
// a ":path" suffix /<method>, or a regular expression); a listener's routes are ordered by
// Gateway API precedence as Envoy Gateway sorts them. Policies are taken oldest first (creation time, then namespace/name),
// rule targets, then route targets, listener targets, Gateway targets: the first that
// covers an xDS route sets all its settings, a less specific one never adds to them, unless
// the route's policy has a mergeType and merges into the listener's (else the Gateway's)
// policy. A second policy on one target is Conflicted; a missing section TargetNotFound. A
// policy Envoy Gateway cannot translate is Invalid and its routes answer 500 with no
// rate-limit call.
//
// # Where it differs from Envoy Gateway
//
// The package was checked, case by case, against Envoy Gateway v1.9.1's own translator on
// the inputs of its golden tests (testdata/egsuite restates those rlpkit reads). Its
// choices where Envoy Gateway depends on more than these objects:
//
//   - Every Gateway of the inputs is taken as Envoy Gateway's (GatewayClasses are not
//     read), every listener as ready (TLS certificates are not read) and every rule as
//     routing to its backends (Services are not read); Envoy Gateway answers 500 on a rule
//     whose backends it cannot resolve, and writes no rate-limit action there.
//   - targetSelectors select objects of the policy's namespace only: Envoy Gateway also
//     selects across namespaces where a ReferenceGrant allows it, which rlpkit does not
//     read. Selected targets are ordered by creation time, then namespace/name.
//   - ListenerSets and route kinds other than HTTPRoute and GRPCRoute are not attached
//     to: a policy targeting one gets no status. A GRPCRoute whose method regular
//     expression does not compile is invalid as a whole (package policy); Envoy Gateway
//     drops that rule only.
//   - Statuses carry the conditions Envoy Gateway writes, in its order: Accepted, Merged
//     (a route policy merged into a listener's or Gateway's; that policy naming the routes
//     merged into it), Overridden (the listeners, routes or rules whose policies replace
//     it) and Warning with reason DeprecatedField (spec.targetRef, spec.compression). They
//     are policyapi.PolicyStatus, one per policy and ancestor, printed as StatusOutput.
//   - A targetRef naming a Gateway, HTTPRoute or GRPCRoute that is not among the inputs is
//     Accepted=False, TargetNotFound, with no ancestor and the likely misspelling, as the
//     Kuadrant APIs say it; Envoy Gateway writes no status then (it has no ancestor to
//     write it under). A route that is among the inputs but attaches to no Gateway of them
//     still gets no status.
//   - Routes are printed per Gateway: a route on two Gateways is one entry each.
//   - Of the parts of a policy that do not concern rate limits, those Envoy Gateway checks
//     from the objects alone are checked as it does, and make the policy Invalid with its
//     messages, one error a line in its order: a bandwidth limit below 1 KiB/s,
//     tcpKeepalive, retry back-off and timeout durations, the connection buffer, HTTP/2
//     window and request buffer sizes, and a responseOverride body taken from a ConfigMap
//     that is not among the inputs or holds no data. loadBalancer and telemetry are not
//     checked (nor circuitBreaker, whose range the CRD's schema already bounds): a policy
//     Envoy Gateway rejects for them is Invalid there and not here.
//   - A shared rule's domain served by several Gateways is one configuration here, the
//     union of the Gateways' descriptors; Envoy Gateway sends one per Gateway under the
//     same name, and its rate-limit service keeps one of them.
package envoygateway
