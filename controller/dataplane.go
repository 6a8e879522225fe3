package controller

import (
	"errors"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// DataPlane is a Gateway API implementation whose proxies rlpkit-controller can wire to the
// configurations it compiles, as kuadrant-operator does: it writes, per Gateway, the object
// that makes the Gateway's Envoy load each filter with its configuration inline, and the
// Envoy cluster of the rate-limit service.
type DataPlane string

const (
	// DataPlaneIstio is Istio: a WasmPlugin (extensions.istio.io/v1alpha1) per filter, and
	// an EnvoyFilter (networking.istio.io/v1alpha3) adding the rate-limit service's cluster.
	DataPlaneIstio DataPlane = "istio"
	// DataPlaneEnvoyGateway is Envoy Gateway: an EnvoyExtensionPolicy
	// (gateway.envoyproxy.io/v1alpha1) holding both filters, and an EnvoyPatchPolicy adding
	// the rate-limit service's cluster (Envoy Gateway applies it only with
	// extensionApis.enableEnvoyPatchPolicy).
	DataPlaneEnvoyGateway DataPlane = "envoy-gateway"
)

// AllDataPlanes are the data planes rlpkit-controller knows.
var AllDataPlanes = []DataPlane{DataPlaneIstio, DataPlaneEnvoyGateway}

// The kinds rlpkit-controller writes into a data plane.
var (
	WasmPluginKind           = schema.GroupVersionKind{Group: "extensions.istio.io", Version: "v1alpha1", Kind: "WasmPlugin"}
	EnvoyFilterKind          = schema.GroupVersionKind{Group: "networking.istio.io", Version: "v1alpha3", Kind: "EnvoyFilter"}
	EnvoyExtensionPolicyKind = schema.GroupVersionKind{Group: "gateway.envoyproxy.io", Version: "v1alpha1", Kind: "EnvoyExtensionPolicy"}
	EnvoyPatchPolicyKind     = schema.GroupVersionKind{Group: "gateway.envoyproxy.io", Version: "v1alpha1", Kind: "EnvoyPatchPolicy"}
)

// Kinds returns the kinds written into the data plane: the filters' and the cluster's.
func (d DataPlane) Kinds() []schema.GroupVersionKind {
	switch d {
	case DataPlaneIstio:
		return []schema.GroupVersionKind{WasmPluginKind, EnvoyFilterKind}
	case DataPlaneEnvoyGateway:
		return []schema.GroupVersionKind{EnvoyExtensionPolicyKind, EnvoyPatchPolicyKind}
	}
	return nil
}

// DefaultWasmShimURL is the module of Kuadrant's wasm-shim written into the data plane for
// the kuadrant.io/v1 policies, the release whose configuration package kuadrant compiles.
const DefaultWasmShimURL = "oci://quay.io/kuadrant/wasm-shim:v0.14.1"

// DataPlaneOptions say whether and how Sync wires the Gateways' proxies. The zero value wires
// nothing: Sync writes ConfigMaps only.
type DataPlaneOptions struct {
	// DataPlanes are the data planes wired; SetupWithManager keeps those whose kinds the API
	// server serves (DetectDataPlanes).
	DataPlanes []DataPlane
	// FilterURL is the module of rlpkit's filter (cmd/rlpkit-filter), as the data plane
	// takes it (oci://registry/image:tag, https://host/rlpkit-filter.wasm). It is required
	// when apim.kuadrant.io/v1alpha1 is read.
	FilterURL string
	// WasmShimURL is the module of Kuadrant's wasm-shim, for kuadrant.io/v1; empty means
	// DefaultWasmShimURL.
	WasmShimURL string
	// RateLimitAddress is "host:port" of the rate-limit service (rlpkit serve's gRPC port).
	// When set, the Envoy clusters the configurations name (Merge.UpstreamCluster and
	// Kuadrant.RateLimitEndpoint) are written, pointing to it, over HTTP/2; when empty, they
	// are left to the data plane (with Istio, the cluster of a Service is
	// "outbound|port||host").
	RateLimitAddress string
}

// Kinds returns the kinds Sync writes with these options: each data plane's filters' kind,
// and its cluster's kind when RateLimitAddress is set.
func (o DataPlaneOptions) Kinds() []schema.GroupVersionKind {
	var out []schema.GroupVersionKind
	for _, d := range o.DataPlanes {
		kinds := d.Kinds()
		if o.RateLimitAddress == "" {
			kinds = kinds[:1]
		}
		out = append(out, kinds...)
	}
	return out
}

// enabled says whether the options wire anything.
func (o DataPlaneOptions) enabled() bool { return len(o.DataPlanes) > 0 }

// check reports options that cannot be written: an unknown data plane, no filter module for
// apim.kuadrant.io/v1alpha1, a rate-limit address that is not host:port.
func (o DataPlaneOptions) check(apis []API) error {
	for _, d := range o.DataPlanes {
		if !slices.Contains(AllDataPlanes, d) {
			return fmt.Errorf("controller: unknown data plane %q: want %s or %s", d, DataPlaneIstio, DataPlaneEnvoyGateway)
		}
	}
	if o.enabled() && o.FilterURL == "" && slices.Contains(apis, APIV1alpha1) {
		return errors.New("controller: wiring the data plane for apim.kuadrant.io/v1alpha1 policies needs the filter's module URL (DataPlaneOptions.FilterURL, rlpkit-controller --filter-url)")
	}
	if o.RateLimitAddress != "" {
		if _, _, err := splitHostPort(o.RateLimitAddress); err != nil {
			return fmt.Errorf("controller: the rate-limit service's address %q: %w", o.RateLimitAddress, err)
		}
	}
	return nil
}

// DetectDataPlanes returns the data planes of want whose kinds the API server serves, per
// mapper, and says, for each of the others, which kind is missing. Without the cluster's
// kind (withCluster: a rate-limit address is given) a data plane is missing too.
func DetectDataPlanes(mapper meta.RESTMapper, want []DataPlane, withCluster bool) (found []DataPlane, missing []string, err error) {
	for _, d := range want {
		kinds := d.Kinds()
		if !withCluster {
			kinds = kinds[:1]
		}
		ok := true
		for _, gvk := range kinds {
			_, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
			switch {
			case err == nil:
			case meta.IsNoMatchError(err):
				ok = false
				missing = append(missing, fmt.Sprintf("%s (%s %s is not served)", d, gvk.Kind, gvk.GroupVersion()))
			default:
				return nil, nil, fmt.Errorf("controller: is %s served? %w", gvk, err)
			}
		}
		if ok {
			found = append(found, d)
		}
	}
	return found, missing, nil
}
