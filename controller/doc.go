// Package controller runs rlpkit inside a Kubernetes controller built on controller-runtime:
// it reads Gateways, HTTPRoutes, RateLimitPolicies and Namespaces through a controller-runtime
// client (the manager's informer caches), compiles them with package merge, and writes back
// what changed: each policy's status conditions, and per Gateway one ConfigMap holding the
// rate-limit filter's PluginConfig and the rate-limit service's limits file.
// cmd/rlpkit-controller is its main.
//
// The library packages (policy, merge, ...) stay free of controller-runtime; this package is
// where the two meet. Sync is the whole reconcile, usable on its own with any client.Client;
// Reconciler and SetupWithManager wire it into a manager.
//
// # One reconcile for the cluster
//
// Merging is global: a Gateway policy reaches every route attached to the Gateway, a route
// may attach to Gateways in other namespaces, and policies targeting one object conflict.
// So every event (a Gateway, an HTTPRoute, a RateLimitPolicy or a Namespace created,
// changed or deleted, or a managed ConfigMap changed by someone else) enqueues one request,
// and Sync recompiles everything from the caches. The work queue folds bursts of events into
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
// app.kubernetes.io/managed-by=rlpkit-controller, with two keys: KeyPluginConfig, the
// PluginConfig as YAML, and KeyLimits, the limits in limitador's format as YAML, which
// `rlpkit serve --limits` reads (and reloads when the mounted file changes). A Gateway
// without policies keeps its ConfigMap, with a PluginConfig without policies and the limits
// "[]", so the service keeps serving. A ConfigMap of that name that rlpkit-controller does
// not manage is never overwritten: Sync reports it.
//
// # Policy APIs
//
// RateLimitPolicy apim.kuadrant.io/v1alpha1 (package policy) is read and its status is
// written. Another policy API is added as one more entry of the object lists Sync reads and
// one more status writer; nothing else depends on the API version.
package controller
