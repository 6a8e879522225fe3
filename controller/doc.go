// Package controller runs rlpkit inside a Kubernetes controller built on controller-runtime:
// it reads Gateways, HTTPRoutes, RateLimitPolicies of both APIs (apim.kuadrant.io/v1alpha1
// and kuadrant.io/v1) and Namespaces through a controller-runtime client (the manager's
// informer caches), compiles them with package merge (v1alpha1) and package kuadrant (v1),
// and writes back what changed: each policy's status, and per Gateway one ConfigMap holding
// rlpkit's filter's PluginConfig, the wasm-shim configuration, and the rate-limit service's
// limits. cmd/rlpkit-controller is its main.
//
// The library packages (policy, merge, ...) stay free of controller-runtime; this package is
// where the two meet. Sync is the whole reconcile, usable on its own with any client.Client;
// Reconciler and SetupWithManager wire it into a manager.
//
// # One reconcile for the cluster
//
// Merging is global: a Gateway policy reaches every route attached to the Gateway, a route
// may attach to Gateways in other namespaces, and policies targeting one object conflict.
// So every event (a Gateway, an HTTPRoute, a RateLimitPolicy of either API or a Namespace
// created, changed or deleted, or a managed ConfigMap changed by someone else) enqueues one
// request, and Sync recompiles everything from the caches. The work queue folds bursts of events into
// one run, and runs never overlap.
//
// # Writes only on change
//
// A status is patched only when the conditions Sync computes differ from the stored ones
// (lastTransitionTime is kept when a condition's status does not change, as
// meta.SetStatusCondition does; observedGeneration is the policy's generation). A
// ConfigMap is created when missing and updated only when its data, labels or owner differ.
// Patches and updates carry the resourceVersion they were computed from, so a stale cache
// yields a conflict, never a write of outdated content, and Sync remembers what it last
// wrote from which version so that a cache that has not caught up with its own write does
// not cause the same write again.
//
// # The ConfigMap
//
// Per Gateway, "rlpkit-<gateway name>" in the Gateway's namespace (ConfigMapName), owned by
// the Gateway (deleted with it by the garbage collector) and labelled
// app.kubernetes.io/managed-by=rlpkit-controller, with these keys, all YAML:
//
//   - KeyLimits, "limits.yaml": every limit of the Gateway's routes in limitador's format,
//     those of the apim.kuadrant.io/v1alpha1 policies then those of the kuadrant.io/v1
//     policies (their namespaces never collide), which `rlpkit serve --limits` reads (and
//     reloads when the mounted file changes): one rate-limit service serves both APIs.
//   - KeyPluginConfig, "pluginconfig.yaml": the PluginConfig of the apim.kuadrant.io/v1alpha1
//     policies, for rlpkit's filter (cmd/rlpkit-filter). Written when that API is read.
//   - KeyKuadrantWasm, "kuadrant-wasm.yaml": the wasm-shim v0.14 configuration of the
//     kuadrant.io/v1 policies, as kuadrant-operator v1.5.2 writes it into the Gateway's
//     WasmPlugin: "wasm" of `rlpkit compile -o kuadrant`. Its rate-limit service is
//     Options.Kuadrant.RateLimitEndpoint (rlpkit-controller --kuadrant-ratelimit-endpoint),
//     which names the Envoy cluster of `rlpkit serve` or of Limitador. Written when that
//     API is read.
//   - KeyKuadrantLimits, "kuadrant-limits.yaml": the Limitador limits of the kuadrant.io/v1
//     policies alone, "limits" of `rlpkit compile -o kuadrant`, for a Limitador deployment.
//     Written when that API is read.
//
// A Gateway without policies keeps its ConfigMap, with configurations without policies and
// the limits "[]", so the service keeps serving. A ConfigMap of that name that
// rlpkit-controller does not manage is never overwritten: Sync reports it.
//
// # Policy APIs
//
// RateLimitPolicy apim.kuadrant.io/v1alpha1 (package policy) gets package merge's
// conditions (Accepted, Enforced). RateLimitPolicy kuadrant.io/v1 (package kuadrantv1)
// gets kuadrant-operator's, as package kuadrant computes them: Accepted (Accepted,
// Invalid, TargetNotFound) and Enforced (Enforced, fully or partially; Overridden naming
// the overriding policies; Unknown when on no path to a route; InvalidCelExpression), with
// status.observedGeneration, and no Enforced condition while not accepted, as the operator
// writes them. A policy of one name in each API is two objects.
//
// Each API needs its CRD: config/crd holds both, generated from the Go types. Kuadrant's
// operator installs its own kuadrant.io/v1 CRD (rlpkit's has the same name and must not
// replace it); rlpkit's apim.kuadrant.io/v1alpha1 CRD exists only in config/crd. Neither
// is required: SetupWithManager asks the API server which CRDs are installed
// (DetectAPIs), watches and reads the APIs found, and logs those missing (installing one
// later needs a restart). Options.APIs (rlpkit-controller --apis) chooses instead.
//
// # Where it differs from kuadrant-operator
//
// The operator writes one WasmPlugin per Gateway and one Limitador resource for the
// cluster, and reports statuses that depend on its components being ready; rlpkit-controller
// writes ConfigMaps for a deployment pipeline or a mount, reports the statuses the operator
// reports once its components are ready, and deploys nothing. Both writing the status of
// the same kuadrant.io/v1 policies would fight: where Kuadrant's operator runs, run
// rlpkit-controller with --apis=apim.kuadrant.io/v1alpha1, or not at all for v1.
package controller
