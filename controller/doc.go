// Package controller runs rlpkit inside a Kubernetes controller built on controller-runtime:
// it reads Gateways, HTTPRoutes, RateLimitPolicies of both APIs (apim.kuadrant.io/v1alpha1
// and kuadrant.io/v1) and Namespaces through a controller-runtime client (the manager's
// informer caches), compiles them with package merge (v1alpha1) and package kuadrant (v1),
// and writes back what changed: per Gateway its output (one ConfigMap holding rlpkit's
// filter's PluginConfig, the wasm-shim configuration and the rate-limit service's limits, or,
// for a large output, that ConfigMap holding an index of parts in other ConfigMaps; with
// Options.DataPlane, the Istio or Envoy Gateway objects that load the filters), then each
// policy's status. cmd/rlpkit-controller is its main.
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
// # Writes only on change, statuses last
//
// Sync writes the Gateways' outputs first (several Gateways at once, each Gateway's objects
// in order), then the policies' statuses (Options.StatusWorkers at a time, within the
// client's QPS and burst, so that the first run over a large cluster does not wait on one
// patch after another). A status is patched only when the conditions Sync computes differ
// from the stored ones (lastTransitionTime is kept when a condition's status does not change,
// as meta.SetStatusCondition does; observedGeneration is the policy's generation); a
// condition of a type rlpkit-controller writes (Accepted, Enforced) that compiling no longer
// computes is removed, so that a policy whose target is gone does not keep Enforced=True. An
// object is created when missing and updated only when what Sync writes in it differs.
// Patches and updates carry the resourceVersion they were computed from, so a stale cache
// yields a conflict, never a write of outdated content, and Sync remembers (a digest of)
// what it last wrote from which version, so that a cache that has not caught up with its
// own write does not cause the same write again. Nothing in a run is quadratic in the number
// of objects or writes.
//
// # Enforced means written
//
// A policy is reported Enforced only once the outputs that enforce it are written: when a
// write of a Gateway's output fails (the API server refuses it, or a data-plane object
// would be too large), the policies compiled into that Gateway are Enforced=False, the
// message naming the object and the API server's answer (reason WriteFailed for
// apim.kuadrant.io/v1alpha1; Unknown, kuadrant-operator's reason while what enforces a
// policy is not ready, for kuadrant.io/v1), and Sync returns the error, so that the work
// queue retries. A policy on several Gateways is not enforced while any of them failed.
//
// # The ConfigMaps
//
// Per Gateway, "rlpkit-<gateway name>" in the Gateway's namespace (ConfigMapName), owned by
// the Gateway (deleted with it by the garbage collector) and labelled
// app.kubernetes.io/managed-by=rlpkit-controller and rlpkit.dev/gateway, with these keys, all
// YAML (GatewayOutput.Files):
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
// # Outputs larger than a ConfigMap
//
// The API server takes at most 1 MiB of data in a ConfigMap, and a Gateway with thousands
// of routes compiles to more (10,000 routes with a policy each: about 4.3 MB). An output
// that fits (MaxConfigMapBytes) keeps the one ConfigMap above, with the keys above, so that
// existing mounts keep working. A larger one is split (package split): its files are cut,
// at line ends, into parts packed into ConfigMaps of at most 512 KiB (MaxPartBytes) named
// "rlpkit-<gateway>-part-<n>" (PartName) and labelled rlpkit.dev/part=<n>, and
// "rlpkit-<gateway>" holds only KeyIndex, the index naming each file's parts with their
// digests. Parts are written before the index; parts no longer needed are deleted after it.
// A reader mounts the index's ConfigMap and its parts' together (a projected volume; give
// more part ConfigMaps than needed, optional) and reads each file whole: `rlpkit serve
// --limits DIR` does, and refuses a set whose parts do not all match the index (the kubelet
// refreshes each ConfigMap of a volume on its own), keeping the limits in force until the set
// is whole. A file of a split output is its parts concatenated: a pipeline that copies the
// PluginConfig into a WasmPlugin concatenates them in the index's order.
//
// # Names
//
// Object names derived from a Gateway's name ("rlpkit-" + name + suffix) longer than
// Kubernetes allows (253 characters), and label values longer than 63, are cut and end in a
// hash of the Gateway's name (ObjectName, GatewayLabel): valid, distinct, the same at every
// start. Two Gateways whose names make one object name ("gw" and "gw-part-1") are reported:
// the second is not written.
//
// # Wiring the data plane
//
// With Options.DataPlane (rlpkit-controller --data-plane), Sync also writes, per Gateway,
// what makes its Envoy load the filters with their configurations inline, as
// kuadrant-operator does: for Istio, a WasmPlugin "rlpkit-<gateway>" of rlpkit's filter
// (DataPlaneOptions.FilterURL, the PluginConfig in pluginConfig, phase AUTHZ) and a WasmPlugin
// "rlpkit-<gateway>-kuadrant" of wasm-shim (the kuadrant.io/v1 configuration, phase STATS);
// for Envoy Gateway, an EnvoyExtensionPolicy "rlpkit-<gateway>" holding both. With
// DataPlaneOptions.RateLimitAddress it writes the Envoy clusters the configurations call
// (--upstream-cluster, --kuadrant-ratelimit-endpoint), pointing to that address over HTTP/2:
// an EnvoyFilter (Istio) or an EnvoyPatchPolicy (Envoy Gateway) "rlpkit-<gateway>-ratelimit".
// Only the data planes whose CRDs are installed are wired (DetectDataPlanes, logged
// otherwise). Each such object is one Kubernetes object: its configuration may hold at most
// 1 MiB as JSON (MaxInlineBytes; about 3,900 routes with a policy each for rlpkit's filter,
// 2,200 for wasm-shim); a larger one is not written and its policies are reported not
// enforced, naming the object and its size, while the split ConfigMaps are written.
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
// The operator writes one WasmPlugin (or EnvoyExtensionPolicy) per Gateway and one Limitador
// resource for the cluster, and reports statuses that depend on its components being ready;
// rlpkit-controller writes ConfigMaps for a deployment pipeline or a mount, split when they
// outgrow one ConfigMap (the operator's one object per Gateway fails at that size), wires
// the data plane only when asked, reports a policy Enforced once its outputs are written, and
// deploys no service. Both writing the status of
// the same kuadrant.io/v1 policies would fight: where Kuadrant's operator runs, run
// rlpkit-controller with --apis=apim.kuadrant.io/v1alpha1, or not at all for v1.
package controller
