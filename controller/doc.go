// Package controller runs rlpkit inside a Kubernetes controller built on controller-runtime:
// it reads Gateways, HTTPRoutes, GRPCRoutes, RateLimitPolicies (apim.kuadrant.io/v1alpha1,
// kuadrant.io/v1), TokenRateLimitPolicies, AuthPolicies and Namespaces through the manager's
// caches, compiles them with the policy APIs of package policyapi, and writes back what
// changed: per Gateway its bundle (ConfigMaps; with Options.DataPlane, the Istio or Envoy
// Gateway objects that load the filters), then each policy's status. cmd/rlpkit-controller
// is its main.
//
// The library packages (policy, merge, ...) stay free of controller-runtime; this package is
// where the two meet. Sync is the whole reconcile, usable on its own with any client.Client;
// Reconciler and SetupWithManager wire it into a manager.
//
// # One reconcile for the cluster
//
// Merging is global: a Gateway policy reaches every route attached to the Gateway, a route
// may attach to Gateways in other namespaces, and policies targeting one object conflict.
// So every event (an object read created, changed or deleted, or a managed ConfigMap changed
// by someone else) enqueues one request, and Sync recompiles everything from the caches.
// The work queue folds bursts of events into one run, and runs never overlap.
//
// # Writes only on change, statuses last
//
// Sync writes the Gateways' outputs first, then the policies' statuses (Options.StatusWorkers
// at a time). An object or a status is written only when what Sync computes differs from
// what is stored (lastTransitionTime kept); writes carry the resourceVersion they were
// computed from, so a stale cache yields a conflict, never outdated content.
//
// A policy is reported Enforced only once the outputs that enforce it are written: when a
// write fails, the policies compiled into that Gateway are Enforced=False, naming the object
// and the API server's answer (reason WriteFailed for apim.kuadrant.io/v1alpha1; Unknown for
// the kuadrant.io kinds, as kuadrant-operator reports what is not ready), and Sync returns the error
// so that the work queue retries.
//
// # The bundle of a Gateway
//
// Per Gateway, the ConfigMap "rlpkit-<gateway name>" (ConfigMapName) in the Gateway's
// namespace, owned by the Gateway and labelled app.kubernetes.io/managed-by and
// rlpkit.dev/gateway, holds its bundle (package bundle; GatewayOutput.Files): KeyLimits,
// every limit in limitador's format for `rlpkit serve --limits`, one rate-limit service for
// every API; KeyPluginConfig, for rlpkit's filter; KeyKuadrantWasm and KeyKuadrantLimits,
// what kuadrant-operator v1.5.2 writes for wasm-shim and Limitador. An API's keys are written
// when the API is read; a Gateway without policies keeps its ConfigMap, with the limits "[]".
// A ConfigMap of that name that rlpkit-controller does not manage is never overwritten.
//
// A bundle over MaxConfigMapBytes (1 MiB, the API server's limit) is split over ConfigMaps
// holding parts and an index (ConfigMaps), written in the order a reader (`rlpkit serve
// --limits DIR`) needs. Names too long for Kubernetes end in a hash of the Gateway's name
// (ObjectName, GatewayLabel); two Gateways whose names make one object name are reported.
//
// # Wiring the data plane
//
// With Options.DataPlane (--data-plane), Sync also writes what makes each Gateway's Envoy
// load the filters with their configurations inline, as kuadrant-operator does: Istio
// WasmPlugins "rlpkit-<gateway>" (rlpkit's filter) and "rlpkit-<gateway>-kuadrant"
// (wasm-shim), or an Envoy Gateway EnvoyExtensionPolicy holding both; with
// DataPlaneOptions.RateLimitAddress, an EnvoyFilter or EnvoyPatchPolicy
// "rlpkit-<gateway>-ratelimit" adding the rate-limit service's clusters. Only the data planes
// whose CRDs are installed are wired (DetectDataPlanes), each within MaxInlineBytes.
//
// # Policy APIs
//
// apim.kuadrant.io/v1alpha1 policies get package merge's conditions (Accepted, Enforced);
// kuadrant.io ones get kuadrant-operator's, as package kuadrant computes them, with
// status.observedGeneration. Each kind needs its CRD (config/crd holds them; keep Kuadrant's
// own where the operator runs). SetupWithManager watches the kinds whose CRD is installed
// (DetectAPIs) and logs the others; Options.APIs (--apis) chooses instead. Sync compiles what
// policyapi/apis.Select gives for the APIs read, and takes every compiled API's statuses and
// bundles (policyapi.Bundler) alike: a kind is one registration (policyKinds).
//
// With a kuadrant.io API read, AuthPolicies are read (unstructured: the rules are
// schemaless) and watched where their CRD is served, so that auth.* is valid on their paths
// and the wasm-shim configuration holds the operator's auth action, as `rlpkit compile`
// gives. Their status, AuthConfigs and the auth service are the operator's and Authorino's:
// rlpkit-controller writes none of them.
//
// # Where it differs from kuadrant-operator
//
// rlpkit-controller writes ConfigMaps for a deployment pipeline or a mount, split when they
// outgrow one (the operator's one WasmPlugin per Gateway fails at that size), wires the data
// plane only when asked, reports a policy Enforced once its outputs are written, and deploys
// no service. Both writing the status of the same kuadrant.io policies would fight:
// where Kuadrant's operator runs, run rlpkit-controller with --apis=apim.kuadrant.io/v1alpha1.
package controller
