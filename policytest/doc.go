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
// envoyproxy/ratelimit configuration files (spec.envoy, LoadEnvoy). The policies among the
// inputs choose the compiler (CompileSet): apim.kuadrant.io/v1alpha1 ones compile to a
// PluginConfig (package merge), kuadrant.io/v1 ones to wasm-shim's configuration and
// Limitador's limits as kuadrant-operator deploys them (package kuadrant),
// BackendTrafficPolicies to Envoy Gateway's routes (package envoygateway). Inputs holding
// several APIs, or no policy, are an error rather than a test of a part of them. Package
// policy skips PolicyTests, so a test can sit in the directory it tests and name it as ".".
// Each case is a request (method, url, headers, remoteAddress, metadata, hitsAddend, auth.*
// attributes), optionally the descriptors it must produce, and steps (whose own headers and
// attributes override the case's): the request sent repeat times at an instant ("at: +10s"
// after the previous step, "at: 90s" after spec.start), each expecting a decision (want: OK or OVER_LIMIT) and
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
// remaining; limits are named after their origin ("ns/policy spec.section.rateLimits[i]",
// "ns/policy limits.name", "limits[i]", an Envoy Gateway rule's name), and a case gives the
// auth.* attributes an AuthPolicy would add as request.attributes. Decoding is strict and
// every problem is reported at once, as for every input of rlpkit:
//
//	toystore.yaml:14: PolicyTest toystore: spec.cases[0].steps[1].want: Unsupported value: "ok": want OK or OVER_LIMIT
//
// # Running
//
// Nothing here re-implements a semantic: the inputs go through policy.Read and the policy
// API's compiler; each request goes through the target's Frontend (the proxy's emulation)
// and is decided by the evaluator the rate-limit service uses (limitador's, or
// envoyproxy/ratelimit's for Envoy Gateway and spec.envoy), over a fresh memory store per
// case, at the simulated instant. Cases are independent. A new input is a Frontend and the
// limits it pairs with; a policy API reaches the package through the contract of package
// policyapi (Target, RateLimitTarget), so the package holds no per-API code. A Frontend
// that makes several calls (a CallsFrontend) is called as Envoy calls: in filter order until
// one answers OVER_LIMIT, then the stream-done calls of the filters that ran; a
// LocalFrontend's local rate limit decides before any call.
//
// A Simulator replays access-log lines (ParseLogLine) through a Target on the clock of
// their start times and counts, per limit, what it applied to, admitted and limited, in
// memory that does not grow with the log. Options.Update rewrites the expectations of the
// cases run from what happened, keeping the file's comments and key order.
//
// A kuadrant.io/v1alpha1 TokenRateLimitPolicy makes Limitador's calls (policyapi.CallKind):
// its check at the request (as if adding 1, charging nothing: over when a matching limit
// is full) and, once the response is done, its report, which adds the response's usage to
// every matching counter; both go through limitador.Evaluator's Probe and Charge, as rlpkit
// serve answers them. A step gives that usage with "usage: {tokens: N}" (an OpenAI-style
// usage.total_tokens) or "usage: {body: '<JSON>'}", read by the report's
// responseBodyJSON pointer; without usage, or with a body lacking it, no report is made
// (as wasm-shim makes none), and a request refused at the check has no response to report.
// A step's limit, remaining and reset are the check's, before its report. An Envoy Gateway
// cost.response from Envoy AI Gateway's io.envoy.ai_gateway metadata charges the tokens,
// written only at the end of a 2xx response (usage.status, default 200). Usage on a target
// making no call after the response fails the case. Step headers replace the case's.
//
// docs/policytest.md holds the details: how limits are named, Envoy Gateway and spec.envoy
// targets, replays and updates.
package policytest
