// Package egv1alpha1 is the rate-limit part of Envoy Gateway's BackendTrafficPolicy
// (gateway.envoyproxy.io/v1alpha1) as Envoy Gateway v1.9 defines it: its targets
// (targetRef, targetRefs with sectionName, targetSelectors), its merge type and its rate
// limits (global and local rules, client selectors, limits, limits from dynamic metadata,
// costs, shared and shadow rules), with the validation of its CRD's schema and CEL rules.
//
// Package policy reads these objects from files beside Gateways and HTTPRoutes and reports
// their problems as any other (file:line: BackendTrafficPolicy ns/name: field.path:
// message); package envoygateway compiles them as Envoy Gateway does.
//
// # Choices
//
//   - The types are rlpkit's own, field for field the CRD's (a test checks them against the
//     CRD Envoy Gateway v1.9.1 publishes): Envoy Gateway's module would add a fifth to the
//     size of the rlpkit binary for types that hold no validation.
//   - The fields of the spec that do not concern rate limits (timeout, retry, loadBalancer,
//     ...) are kept as written (Unread) and checked only by the CEL rules of the spec that
//     read them; a typo in a field name is still an error, as strict decoding finds it.
//   - Defaults of the CRD (a header match is Exact, a path match PathPrefix "/", a source
//     match Exact, a selector's namespaces Same) are read through accessors (MatchType)
//     rather than written into the object.
//   - The conditions Envoy Gateway finds only when it translates a policy (an invalid
//     regular expression or CIDR, Distinct with invert or a value, a local rule unit that is
//     no multiple of the default's) are not validation problems: package envoygateway
//     reports them in the policy's status, as Envoy Gateway does.
package egv1alpha1
