// Package policy is the RateLimitPolicy API (apim.kuadrant.io/v1alpha1) a controller
// imports, and the reading and validation of the objects rate-limit policy is about:
// Gateways and HTTPRoutes (gateway.networking.k8s.io/v1), RateLimitPolicies, and Namespaces.
//
// It does not merge policies or compile configuration (package merge does) and does not talk
// to a cluster: the types carry deep-copy methods so that a controller can use them with its
// client library, and Read/Decode read the same objects from files for the CLI and tests.
//
// # Types
//
// RateLimitPolicy follows the schema of the source design notes: spec.targetRef (a
// Gateway API LocalPolicyTargetReference to a Gateway or HTTPRoute in the policy's
// namespace), spec.default and spec.override, each with gatewayActions (package
// descriptor's types, so that what a policy says is what the filter gets) and rateLimits
// (conditions, variables, max_value, seconds); status.conditions are metav1 Conditions of
// the types Accepted and Enforced, with the reasons this package defines.
//
// # Reading
//
// Read takes files, directories (recursively, *.yaml, *.yml and *.json in lexical order)
// and "-" for stdin; Decode takes one input. Inputs are multi-document YAML or JSON; a v1
// List is read item by item. Decoding is strict: unknown kinds and apiVersions, unknown and
// duplicate fields, values of the wrong type, objects without a name, and the same object
// (kind, namespace, name) twice are problems. A namespaced object without a namespace is in
// "default". Documents of kind PolicyTest (rlpkit.dev/v1alpha1), read by package policytest,
// are left out of the Set without a problem, so that a test can live beside the objects it
// tests. Every problem of every input is reported, in the order written, as
//
//	policies.yaml:14: RateLimitPolicy default/p: spec.default.rateLimits[0].seconds: Invalid value: 0: must be greater than 0
//
// with the line where the YAML has one. Objects that fail validation are still returned, with
// their problems (Set.Problems), so that merging can mark a policy Invalid rather than lose
// it.
//
// # Validation
//
// Each object is validated on its own, with k8s.io/apimachinery field errors:
// ValidateRateLimitPolicy checks the target reference (group gateway.networking.k8s.io, kind
// Gateway or HTTPRoute, a name), the gateway actions as package descriptor validates a
// PluginConfig's, and the rate limits (max_value >= 0, seconds > 0, conditions that parse as
// package limit's conditions, no empty variable, no two limits of one section with the same
// patch key: conditions as a set, variables as a set, seconds). A target that is not among
// the inputs is not a validation problem: merging reports it as TargetNotFound.
// ValidateGateway and ValidateHTTPRoute check what attachment and hostname intersection
// depend on (listeners with unique names, ports, protocols, Gateway API hostnames, allowed
// routes; parentRefs with names, hostnames, path matches); the rest of those APIs is left
// to their own validation.
//
// # Where it differs from the sources
//
//   - The target reference is gateway-api's v1 LocalPolicyTargetReference rather than the
//     v1alpha2 PolicyTargetReference of the notes: the same fields without a namespace,
//     since a policy targets objects of its own namespace.
//   - Namespace is a small type of this package (metadata, spec.finalizers, status) rather
//     than k8s.io/api's, which would be a large dependency for the labels merging reads.
package policy
