// Command rlpkit-controller is rlpkit's Kubernetes controller: it watches Gateways,
// HTTPRoutes and RateLimitPolicies (apim.kuadrant.io/v1alpha1 and kuadrant.io/v1, those
// whose CRD is installed, or those --apis names), TokenRateLimitPolicies and, with a
// kuadrant.io API, AuthPolicies (read only, where served: auth.* and the auth action of the
// paths they cover), compiles them with package merge and package kuadrant, patches each
// rate-limit policy's status, and writes per Gateway a ConfigMap
// "rlpkit-<gateway>" holding rlpkit's filter's PluginConfig (pluginconfig.yaml), Kuadrant's
// wasm-shim configuration (kuadrant-wasm.yaml), Limitador's limits of the kuadrant.io/v1
// policies (kuadrant-limits.yaml), and every limit of the Gateway (limits.yaml, for
// `rlpkit serve --limits`); an output larger than one ConfigMap is split over
// "rlpkit-<gateway>-part-<n>" ConfigMaps, with an index in "rlpkit-<gateway>", which
// `rlpkit serve --limits DIR` reads mounted. With --data-plane it also writes the objects
// that load the filters into each Gateway's Envoy (Istio's WasmPlugin and EnvoyFilter, Envoy
// Gateway's EnvoyExtensionPolicy and EnvoyPatchPolicy), configurations inline. See package
// github.com/rlpkit/rlpkit/controller for what it writes and when.
//
// Usage:
//
//	rlpkit-controller [flags]
//
// It serves Prometheus metrics (controller-runtime's and rlpkit_controller_*) on
// --metrics-addr, /healthz and /readyz on --health-addr, each within the bounds of
// --http-read-header-timeout (10s), --http-read-timeout (30s), --http-write-timeout (30s),
// --http-idle-timeout (90s) and --http-max-connections (1024), and with --leader-elect runs
// active on one replica at a time.
// The RBAC it needs is in examples/kubernetes/controller-rbac.yaml.
package main

import (
	"os"

	ctrl "sigs.k8s.io/controller-runtime"
)

func main() {
	os.Exit(run(ctrl.SetupSignalHandler(), os.Args[1:]))
}
