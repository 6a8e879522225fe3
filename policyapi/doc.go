// Package policyapi is the contract every policy API rlpkit reads implements, and the
// vocabulary the APIs share.
//
// An API (apim.kuadrant.io/v1alpha1 RateLimitPolicy in package merge, kuadrant.io/v1
// RateLimitPolicy in package kuadrant, Envoy Gateway's BackendTrafficPolicy in package
// envoygateway) says which of a policy.Set's objects are its policies and compiles them
// over the set's Gateways and HTTPRoutes into a Compiled: every policy's PolicyStatus,
// the Warnings a careful user wants to hear of, the printed output of rlpkit compile, the
// rate-limit service's limits and, per Gateway, a data plane that requests run through.
// Package policyapi/apis lists the APIs and selects those an input holds (apis.Select):
// the CLI and package policytest go through it, so a new API is one more
// implementation, never a new path through them.
//
// The shared vocabulary:
//   - PolicyStatus: a policy's conditions as metav1.Conditions, per policy or, for Envoy
//     Gateway, per ancestor; a controller writes them as they are.
//   - Warning: "file:line: Kind ns/name: field: message", and the suggestion helpers
//     (Candidates, Similar, NotFound) that make a target not found say "did you mean".
//   - Request: an HTTP request, with its conversions to what package descriptor,
//     envoyroute and wasmshim read; Frontend, the rate-limit request a proxy builds of
//     it, and Target, a Gateway's Frontend with the limits that decide its requests
//     (rlpkit test and simulate run requests through it).
//
// The controller (cmd/rlpkit-controller) writes the PolicyStatus of the APIs whose CRDs
// the cluster serves, and each Gateway's bundle from every API's Bundles (Bundler); which
// APIs it compiles is decided by those CRDs, not by Select.
//
// Where the APIs differ, rlpkit follows each API's own controller: Kuadrant writes one
// status per policy, Envoy Gateway one per ancestor. Where they agree on what a user
// expects, rlpkit makes them agree here too: a target that is not among the inputs is
// TargetNotFound with its likely misspelling in every API (Envoy Gateway itself writes no
// status then).
package policyapi
