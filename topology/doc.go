// Package topology is the Gateway API attachment that rlpkit's policy compilers share:
// which Gateway a parentRef names and which listeners it selects (sectionName, port), which
// listeners admit an HTTPRoute or a GRPCRoute (protocol, allowedRoutes namespaces and kinds), and the
// hostnames a route serves through a listener. Package merge (apim.kuadrant.io/v1alpha1),
// package kuadrant (kuadrant.io/v1) and package envoygateway (Envoy Gateway's
// BackendTrafficPolicy) build their topologies from these pieces, each with its own
// precedence and, where its controller differs, its own choices (kuadrant-operator does not
// consult allowedRoutes; Envoy Gateway drops from a listener the hostnames another listener
// on its port names).
//
// It is pure: no I/O, no globals. It reads Gateways, HTTPRoutes and GRPCRoutes of the Gateway API
// (gateway.networking.k8s.io/v1) and the labels of Namespaces; it does not validate them
// (package policy does).
//
// # Choices
//
//   - A parentRef without group and kind names a Gateway; its namespace defaults to the
//     route's.
//   - A listener without allowedRoutes admits routes of the Gateway's namespace only (the
//     Gateway API default, from: Same); a namespace not among the inputs has only the label
//     kubernetes.io/metadata.name.
//   - HTTP and HTTPS listeners admit HTTPRoutes and GRPCRoutes (the Gateway API's default
//     kinds for those protocols) unless allowedRoutes.kinds names others; listeners are not
//     checked for readiness (TLS certificates are not read).
package topology
