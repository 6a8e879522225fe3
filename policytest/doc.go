// Package policytest runs PolicyTest files: requests sent on a simulated clock through the
// descriptors and limits compiled from rate-limit policies, checked against expected
// descriptors and decisions. "rlpkit test" runs them from the command line; Run runs them
// from go test, so that a controller's or a platform team's repository golden-tests its
// policies in its own test suite:
//
//	var update = flag.Bool("update", false, "rewrite PolicyTest expectations")
//
//	func TestPolicies(t *testing.T) {
//		policytest.Run(t, "testdata/policies") // one subtest per file and per case
//	}
//
// # PolicyTest files
//
// A PolicyTest (apiVersion rlpkit.dev/v1alpha1) names its inputs, relative to its file:
// Gateway API objects and RateLimitPolicies (spec.inputs) and the Gateway whose compiled
// configuration and limits the cases run against (spec.gateway), or a PluginConfig file and
// a limits file (spec.pluginConfig, spec.limits), or an Envoy route configuration and
// envoyproxy/ratelimit configuration files (spec.envoy, see below). The RateLimitPolicies among the inputs
// choose the compiler: apim.kuadrant.io/v1alpha1 ones compile to a PluginConfig (package
// merge), kuadrant.io/v1 ones to wasm-shim's configuration and Limitador's limits as
// kuadrant-operator deploys them (package kuadrant). Inputs holding both APIs, or no
// RateLimitPolicy, are an error rather than a test of a part of them. Package policy skips PolicyTests, so a test can sit in
// the directory it tests and name it as ".". Each case is a request (method, url, headers,
// remoteAddress, metadata, hitsAddend), optionally the descriptors it must produce, and
// steps: the request sent repeat times at an instant ("at: +10s" after the previous step,
// "at: 90s" after spec.start), each expecting a decision (want: OK or OVER_LIMIT) and
// optionally the limit that decided the last repetition (its name), its remaining hits and
// its time to reset, or the status of every descriptor (statuses):
//
//   - name: admin
//     request: {method: GET, url: http://api.toystore.com/admin, remoteAddress: 10.0.0.1}
//     steps:
//   - {repeat: 50, want: OK}
//   - {want: OVER_LIMIT, limit: "gateway-system/mygateway spec.override.rateLimits[0]"}
//
// The deciding limit is the first over the limit or, when none is, the one with the least
// remaining. Limits compiled from policies are named after their origin: "ns/policy
// spec.section.rateLimits[i]" for apim.kuadrant.io/v1alpha1, "ns/policy limits.name" for
// kuadrant.io/v1 (whether the limit sits in spec.limits, spec.defaults or spec.overrides);
// limits of a limits file without a name are named "limits[i]". kuadrant.io/v1 predicates
// and counters may read auth.* attributes, which an AuthPolicy gives in a cluster: rlpkit
// runs no auth service, so a case gives them as request.attributes, by dotted name
// ({"auth.identity.userid": "alice"}).
// Decoding is strict and every problem is reported at once, as for every input of rlpkit:
//
//	toystore.yaml:14: PolicyTest toystore: spec.cases[0].steps[1].want: Unsupported value: "ok": want OK or OVER_LIMIT
//
// # Running
//
// Nothing here re-implements a semantic: the inputs go through policy.Read and merge.Compile
// or kuadrant.Compile (or descriptor.Decode and limitador.DecodeLimits); each request goes
// through the target's Frontend, which builds the rlsmsg.Request the proxy sends
// (descriptor.Engine's Explain for a PluginConfig, wasmshim.Evaluator's Evaluate for
// kuadrant.io/v1), then a limitador.Evaluator over a fresh counter.MemoryStore per case, at
// the simulated instant. Cases are independent, so any subset runs alike. A new input is a
// Frontend and the limits it pairs with: nothing else in the package changes.
//
// wasm-shim sends one rate-limit request per applying ratelimit action; kuadrant-operator
// writes one per action set, and the Frontend of a wasm-shim configuration evaluates the
// first (a configuration written by hand with several says, in the explanation, which ones
// were left out).
//
// # Envoy Gateway
//
// When the inputs hold Envoy Gateway BackendTrafficPolicies, the target is what Envoy
// Gateway configures for spec.gateway (package envoygateway), not a PluginConfig: each
// request takes the route Envoy would take, its local rate limit's token buckets decide
// first (package envoygateway's LocalLimiter), then each rate-limit filter's call, in filter
// order, until one answers OVER_LIMIT, decided by package limit/envoyratelimit's evaluator
// over the compiled configuration; then the filters that ran send the descriptors of their
// response costs, counted for the requests that follow. descriptors lists the request-time
// descriptors of every call, in order. A limit is named after its rule
// ("ns/policy/rule/i"), a local default bucket "ns/policy local default"; a local answer's
// domain is "local". A route an invalid policy covers answers 500 without calling, which a
// case sees as OK.
//
// # Envoy route configurations
//
// With spec.envoy (LoadEnvoy), the target is an Envoy route configuration with rate-limit
// actions (written by hand, or "rlpkit compile -o envoy" output) and envoyproxy/ratelimit
// configuration files: each request goes through package envoyroute's evaluation (the
// virtual host, the route, each rate-limit filter's call; RouteFrontend) and is decided by
// package limit/envoyratelimit's evaluator (RateLimitTarget), with that service's
// semantics. As in Envoy, the filters call in filter order until one answers OVER_LIMIT,
// and the filters that ran send the descriptors of apply_on_stream_done rate limits when
// the response is done, counted for the requests that follow; descriptors and statuses list
// every request-time descriptor of every call, in order (a call not made answers OK
// without a limit). A limit is named after its rule: its rate_limit name, else its path
// below the domain ("generic_key_login.remote_address"), as the service names it in
// statistics; an override keeps no name. A bare RouteConfiguration names no filter:
// spec.domain gives its domain, by default the only domain of the ratelimit files. Files
// are recognised by their keys (see LoadEnvoy); one that is neither, a configuration
// element envoyroute does not model, or a route configuration none of whose domains is
// configured is an error, never a run of nothing. Any Frontend that makes several calls
// (a CallsFrontend) is run the same way, whatever the limits it is paired with.
//
// A kuadrant.io/v1alpha1 TokenRateLimitPolicy makes Limitador's calls (policyapi.CallKind):
// its check at the request (as if adding 1, charging nothing: over when a matching limit
// is full) and, once the response is done, its report, which adds the response's usage to
// every matching counter; both go through limitador.Evaluator's Probe and Charge, as rlpkit
// serve answers them. A step gives that usage with "usage: {tokens: N}" (an OpenAI-style
// usage.total_tokens) or "usage: {body: '<JSON>'}", read by the report's
// responseBodyJSON pointer; without usage, or with a body lacking it, no report is made
// (as wasm-shim makes none), and a request refused at the check has no response to report.
// A step's limit, remaining and reset are those of the check, before its report. Usage on
// a target that makes no call after the response fails the case.
//
// # Replaying traffic
//
// A Simulator replays access-log lines (ParseLogLine reads Envoy's JSON access logs and its
// default text format) through a Target on the clock of their start times, with counters in a
// memory store, and counts per limit the requests it applied to, admitted and limited, the
// first time it limited, its peak per second, and a timeline of at most MaxBuckets buckets.
// Whether a limit applies is asked of a limit.Evaluator holding that limit alone, over a store
// that admits everything and notes whether it was asked: the Evaluator's own matching decides.
// Memory does not grow with the length of the log.
//
// With update (Options.Update, "rlpkit test -update", or a -update flag declared by the test
// binary for Run), the expectations of the cases run are rewritten in place from what
// happened: descriptors, and each step's want, limit, remaining and reset (and statuses when
// present). The file is edited as YAML nodes, so comments and the order of keys stay; a
// step whose repetitions got different answers is split into one step per run of equal
// answers. The file is written back as YAML.
package policytest
