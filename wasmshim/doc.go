// Package wasmshim is the configuration Kuadrant's wasm-shim v0.14 reads (the plugin
// configuration kuadrant-operator v1.5.2 writes into its WasmPlugin or EnvoyExtensionPolicy),
// and an evaluator of it: for a request it tells which action set applies, which actions
// call which service, and the rate-limit descriptors wasm-shim sends.
//
// It is for tools that check or explain what a Kuadrant gateway will do without a running
// cluster: package kuadrant compiles kuadrant.io/v1 RateLimitPolicies into a Config, and
// rlpkit descriptors and rlpkit serve evaluate it. It does not decode Kubernetes objects and
// does not count: the descriptors it returns go to a rate-limit service (package limit/limitador).
//
// # Predicates and data
//
// Predicates and data expressions are CEL over Kuadrant's well-known attributes
// (request.*, source.*, destination.*, connection.*, auth.*), with cel-go's string
// extensions and wasm-shim's functions queryMap, requestBodyJSON and responseBodyJSON.
// CheckPredicate type-checks a predicate against the attributes as Kuadrant documents
// them, so that a misspelt attribute (request.metod) is an error before anything runs, and
// CheckExpression does the same for a data expression (a counter), which Kuadrant does not
// check: rlpkit's validation is stricter there, since such a counter makes its limit never
// apply. OperatorCheck is kuadrant-operator's own, laxer check of predicates (attribute
// groups untyped, auth declared only with an AuthPolicy), which decides whether the
// operator writes an action;
// evaluation binds each attribute group as a map, so an attribute the request does not
// carry makes its expression fail, as a missing property does in wasm-shim. A
// configuration may hold expressions that were never checked (written by hand or by
// kuadrant-operator): one that parses but names something undeclared loads, and fails when
// evaluated.
//
// # Where it differs from wasm-shim
//
//   - Only ratelimit actions build descriptors; auth and ratelimit-check/-report actions are
//     reported as applying but not evaluated further (rlpkit has no AuthPolicy).
//   - A predicate or data expression that fails to evaluate (a missing attribute) makes the
//     predicate false, or leaves the entry out, and the Explanation says why; wasm-shim
//     logs the error and fails the request per the service's failure mode.
//   - requestBodyJSON and responseBodyJSON are type-checked but have no body to read when
//     evaluated here: an expression calling them fails (see above). wasm-shim pauses the
//     request until the body arrives.
package wasmshim
