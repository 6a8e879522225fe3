// Package kuadrantv1 is Kuadrant's RateLimitPolicy API of today, kuadrant.io/v1, as
// kuadrant-operator v1.5.2 defines it: the types, and the validation its CRD performs, so
// that a policy kept in git is checked as the API server would check it.
//
// Package policy reads these objects from files beside Gateways, HTTPRoutes and the older
// apim.kuadrant.io/v1alpha1 RateLimitPolicy, and reports their problems as it reports any
// other (file:line: RateLimitPolicy ns/name: field.path: message). Package kuadrant merges
// them along Gateway -> listener -> HTTPRoute -> rule and compiles them to wasm-shim's
// configuration and Limitador's limits.
//
// # Where it differs from the CRD
//
//   - Predicates (top-level and per-limit when) are type-checked against Kuadrant's
//     well-known attributes (package wasmshim), which the operator does only when it builds
//     the configuration (and then reports the policy as not enforced); counters are parsed
//     as CEL but, as in Kuadrant, not type-checked.
//   - A top-level when beside defaults or overrides is reported: Kuadrant reads it as part
//     of the implicit defaults, which the CRD forbids beside explicit defaults or overrides.
//   - A counter holding a double quote or a backslash is reported: kuadrant-operator
//     writes it unescaped into Limitador's variable descriptors[0]["<counter>"], which
//     Limitador then cannot read.
//   - The types carry no deep-copy methods and no status writer: they are read from files.
package kuadrantv1
