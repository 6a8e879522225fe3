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
// RateLimitPolicy follows the schema of the Kuadrant proposal "RateLimitPolicy targeting a
// Gateway resource": spec.targetRef (a Gateway API LocalPolicyTargetReference to a Gateway
// or HTTPRoute in the policy's namespace), spec.default and spec.override, each with
// gatewayActions (package descriptor's types, so that what a policy says is what the filter
// gets) and rateLimits (conditions, variables, max_value, seconds); status.conditions are
// metav1 Conditions of the types Accepted and Enforced, with the reasons this package
// defines.
//
// # Reading
//
// Read takes files, directories (recursively, *.yaml, *.yml and *.json in lexical order)
// and "-" for stdin; Decode takes one input. Inputs are multi-document YAML or JSON; a v1
// List is read item by item. Identify says what a file holds, and every document is read as
// what it holds (see Content):
//
//   - Gateways, HTTPRoutes and GRPCRoutes (gateway.networking.k8s.io/v1; a GRPCRoute's
//     method matches are checked as the Gateway API's schema checks them), RateLimitPolicies
//     (apim.kuadrant.io/v1alpha1, and kuadrant.io/v1 in Set.PoliciesV1: see package
//     kuadrantv1), TokenRateLimitPolicies (kuadrant.io/v1alpha1, in Set.TokenPolicies: see
//     package kuadrantv1alpha1), Envoy Gateway's BackendTrafficPolicies
//     (gateway.envoyproxy.io/v1alpha1, in Set.BackendTrafficPolicies: see package
//     egv1alpha1), Namespaces and ConfigMaps (v1) are decoded and validated; a ConfigMap is
//     read for the policies that refer to one (a BackendTrafficPolicy's responseOverride
//     body), and a second one of a name, as kustomize overlays write, is skipped with a
//     notice. Both RateLimitPolicy APIs may appear in one input; a policy of one name
//     in each is two objects. Envoy Gateway's other kinds (ClientTrafficPolicy, EnvoyProxy,
//     ...) are skipped, as other Kubernetes objects.
//   - A PluginConfig or a limits file (limitador's format) is checked with package
//     descriptor's or package limit/limitador's decoder and validation, and kept in
//     Set.PluginConfigs or Set.LimitLists: they are what compiling makes, not inputs to it.
//   - Other Kubernetes objects (a Deployment, a Service, a Kustomization, a GatewayClass, a
//     Kuadrant AuthPolicy, and kinds rlpkit reads of other API groups, such as an Istio
//     networking.istio.io Gateway), documents that are not Kubernetes objects (Helm values, a
//     package.json), the output of rlpkit compile and Helm templates that are not YAML are
//     skipped, with one Notice per file in Set.Notices ("skipped deploy.yaml: apps/v1
//     Deployment, v1 Service"). Notices are information, not problems or warnings.
//   - PolicyTests (rlpkit.dev/v1alpha1), read by package policytest, are left out without
//     a notice, so that a test can sit in the directory of the objects it tests.
//   - Anything else that claims to be what rlpkit reads is a problem: a kind of the Gateway
//     API or Kuadrant groups that rlpkit does not know (a typo such as HTTPRoutes), a kind
//     rlpkit reads in another version of those groups or without a group (a
//     kuadrant.io/v1beta2 RateLimitPolicy, and the message says what is), an object
//     without a kind.
//
// Decoding is strict: unknown and duplicate fields, values of the wrong type, objects
// without a name, and the same object (kind, namespace, name) twice are problems. A
// namespaced object without a namespace is in "default". Every problem of every input is
// reported, in the order written, as
//
//	policies.yaml:14: RateLimitPolicy default/p: spec.default.rateLimits[0].seconds: Invalid value: 0: must be greater than 0
//
// with the line where the YAML has one; YAML syntax errors name the line that is wrong (see
// package yamljson). Objects that fail validation are still returned, with their problems
// (Set.Problems), so that merging can mark a policy Invalid rather than lose it. Decode
// says how values of the wrong type are found and why max_value and seconds are required.
//
// # Validation
//
// Each object is validated on its own, with k8s.io/apimachinery field errors
// (ValidateRateLimitPolicy, ValidateGateway, ValidateHTTPRoute), so that every valid set of
// objects compiles (package merge); the rest of the Gateway API is left to its own
// validation. A target that is not among the inputs is not a validation problem: merging
// reports it as TargetNotFound.
//
// # Where it differs from upstream
//
//   - The target reference is gateway-api's v1 LocalPolicyTargetReference rather than the
//     v1alpha2 PolicyTargetReference of the proposal: the same fields without a namespace,
//     since a policy targets objects of its own namespace.
//   - max_value and seconds are required: the proposal's examples always give them, and a
//     limit without max_value would otherwise block every request.
//   - Namespace is a small type of this package (metadata, spec.finalizers, status) rather
//     than k8s.io/api's, which would be a large dependency for the labels merging reads.
package policy
