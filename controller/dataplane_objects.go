package controller

import (
	"encoding/json"
	"fmt"
	"net"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/rlpkit/rlpkit/bundle"
	"github.com/rlpkit/rlpkit/kuadrant"
	"github.com/rlpkit/rlpkit/merge"
)

// MaxInlineBytes is the most a data-plane object's spec may hold, as JSON, with the filters'
// configurations inline: a WasmPlugin or EnvoyExtensionPolicy is one object, which etcd
// refuses over 1.5 MiB a request. A Gateway whose configuration is larger is not wired, and
// its policies are reported not enforced, naming the object and its size; its ConfigMaps,
// which are split, are written as usual.
const MaxInlineBytes = 1 << 20

// dataPlaneObject is one object Sync writes into a data plane for a Gateway: the object, the
// APIs whose policies it enforces, and, when it cannot be written, why.
type dataPlaneObject struct {
	obj  *unstructured.Unstructured
	apis []string
	err  error
}

// dataPlaneObjects returns the objects that wire the Gateway's proxy for each data plane of
// opts: the filters reading the files the APIs compiled (rlpkit's filter the
// PluginConfig, wasm-shim its configuration), with their configurations inline, and, with
// a rate-limit address, the clusters they call.
func dataPlaneObjects(out GatewayOutput, opts Options, maxInline int) []dataPlaneObject {
	var objs []dataPlaneObject
	dp := opts.DataPlane
	inline := func(gw *gatewayv1.Gateway, kind schema.GroupVersionKind, suffix string, apis []string, spec map[string]any) dataPlaneObject {
		return inlineObject(gw, kind, suffix, apis, spec, maxInline)
	}
	pluginConfig, filterAPI := out.file(bundle.PluginConfig)
	wasmShim, wasmShimAPI := out.file(bundle.KuadrantWasm)
	for _, d := range dp.DataPlanes {
		switch d {
		case DataPlaneIstio:
			if pluginConfig != nil {
				objs = append(objs, inline(out.Gateway, WasmPluginKind, "", []string{filterAPI}, filterWasmPlugin(out, pluginConfig, opts)))
			}
			if wasmShim != nil {
				objs = append(objs, inline(out.Gateway, WasmPluginKind, "-kuadrant", []string{wasmShimAPI}, wasmShimWasmPlugin(out, wasmShim, dp)))
			}
			if dp.RateLimitAddress != "" {
				objs = append(objs, inline(out.Gateway, EnvoyFilterKind, "-ratelimit", out.apis(), clusterEnvoyFilter(out, opts)))
			}
		case DataPlaneEnvoyGateway:
			objs = append(objs, inline(out.Gateway, EnvoyExtensionPolicyKind, "", out.apis(), extensionPolicy(out, opts)))
			if dp.RateLimitAddress != "" {
				objs = append(objs, inline(out.Gateway, EnvoyPatchPolicyKind, "-ratelimit", out.apis(), clusterPatchPolicy(out, opts)))
			}
		}
	}
	return objs
}

// apis returns the names of the policy APIs compiled for the Gateway.
func (o GatewayOutput) apis() []string {
	out := make([]string, len(o.Parts))
	for i, p := range o.Parts {
		out[i] = p.API
	}
	return out
}

// inlineObject returns the object of kind for gw with the spec, named ObjectName(gw,
// suffix), or why it cannot be written: its spec over max bytes as JSON.
func inlineObject(gw *gatewayv1.Gateway, kind schema.GroupVersionKind, suffix string, apis []string, spec map[string]any, max int) dataPlaneObject {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(kind)
	u.SetNamespace(gw.Namespace)
	u.SetName(ObjectName(gw.Name, suffix))
	u.SetLabels(map[string]string{LabelManagedBy: ManagerName, LabelGateway: GatewayLabel(gw.Name)})
	u.SetOwnerReferences(ownedBy(gw))
	o := dataPlaneObject{obj: u, apis: apis}
	b, err := json.Marshal(spec)
	if err == nil {
		var s map[string]any
		err = utiljson.Unmarshal(b, &s) // numbers as the API server's objects hold them
		u.Object["spec"] = s
	}
	switch {
	case err != nil:
		o.err = fmt.Errorf("encode %s: %w", describeObject(u), err)
	case len(b) > max:
		o.err = fmt.Errorf("%s would hold %d bytes of configuration (JSON), more than the %d one object may hold: the Gateway has too many routes and policies to wire its proxy with one object (its ConfigMaps are written)", describeObject(u), len(b), max)
	}
	return o
}

// gatewayRef is a target reference to the Gateway.
func gatewayRef(gw *gatewayv1.Gateway) map[string]any {
	return map[string]any{"group": gatewayv1.GroupName, "kind": "Gateway", "name": gw.Name}
}

// filterWasmPlugin is the spec of Istio's WasmPlugin of rlpkit's filter, reading
// pluginConfig.
func filterWasmPlugin(out GatewayOutput, pluginConfig any, opts Options) map[string]any {
	fail := "FAIL_OPEN"
	if opts.Merge.FailureModeDeny {
		fail = "FAIL_CLOSE"
	}
	return map[string]any{
		"targetRefs":   []any{gatewayRef(out.Gateway)},
		"url":          opts.DataPlane.FilterURL,
		"phase":        "AUTHZ",
		"failStrategy": fail,
		"pluginConfig": pluginConfig,
	}
}

// wasmShimWasmPlugin is the spec of Istio's WasmPlugin of Kuadrant's wasm-shim, reading
// config, as kuadrant-operator writes it.
func wasmShimWasmPlugin(out GatewayOutput, config any, dp DataPlaneOptions) map[string]any {
	return map[string]any{
		"targetRefs":   []any{gatewayRef(out.Gateway)},
		"url":          dp.wasmShimURL(),
		"phase":        "STATS",
		"pluginConfig": config,
	}
}

func (o DataPlaneOptions) wasmShimURL() string {
	if o.WasmShimURL == "" {
		return DefaultWasmShimURL
	}
	return o.WasmShimURL
}

// extensionPolicy is the spec of Envoy Gateway's EnvoyExtensionPolicy holding both filters.
func extensionPolicy(out GatewayOutput, opts Options) map[string]any {
	wasm := []any{}
	if pluginConfig, _ := out.file(bundle.PluginConfig); pluginConfig != nil {
		wasm = append(wasm, map[string]any{
			"name":     "rlpkit-filter",
			"code":     wasmCode(opts.DataPlane.FilterURL),
			"config":   pluginConfig,
			"failOpen": !opts.Merge.FailureModeDeny,
		})
	}
	if config, _ := out.file(bundle.KuadrantWasm); config != nil {
		wasm = append(wasm, map[string]any{
			"name":     "kuadrant-wasm-shim",
			"rootID":   "kuadrant_wasm_shim",
			"code":     wasmCode(opts.DataPlane.wasmShimURL()),
			"config":   config,
			"failOpen": false,
		})
	}
	return map[string]any{"targetRefs": []any{gatewayRef(out.Gateway)}, "wasm": wasm}
}

// wasmCode is Envoy Gateway's source of a module: HTTP for an http(s) URL, else an OCI
// image, named without the "oci://" Istio's URLs carry.
func wasmCode(url string) map[string]any {
	if strings.HasPrefix(url, "https://") || strings.HasPrefix(url, "http://") {
		return map[string]any{"type": "HTTP", "http": map[string]any{"url": url}}
	}
	return map[string]any{"type": "Image", "image": map[string]any{"url": strings.TrimPrefix(url, "oci://")}}
}

// clusterNames returns the Envoy clusters the Gateway's configurations call: the
// PluginConfig's upstream cluster and wasm-shim's rate-limit endpoint, once each.
func clusterNames(out GatewayOutput, opts Options) []string {
	var names []string
	if v, _ := out.file(bundle.PluginConfig); v != nil {
		names = append(names, cmpOr(opts.Merge.UpstreamCluster, merge.DefaultUpstreamCluster))
	}
	if v, _ := out.file(bundle.KuadrantWasm); v != nil {
		if n := cmpOr(opts.Kuadrant.RateLimitEndpoint, kuadrant.DefaultRateLimitEndpoint); len(names) == 0 || names[0] != n {
			names = append(names, n)
		}
	}
	return names
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// cluster is the Envoy cluster (envoy.config.cluster.v3.Cluster, as JSON) of the rate-limit
// service at opts' address, over HTTP/2 (gRPC).
func cluster(name string, opts Options) map[string]any {
	host, port, _ := splitHostPort(opts.DataPlane.RateLimitAddress) // checked by Options.check
	return map[string]any{
		"name":            name,
		"type":            "STRICT_DNS",
		"connect_timeout": "1s",
		"lb_policy":       "ROUND_ROBIN",
		"typed_extension_protocol_options": map[string]any{
			"envoy.extensions.upstreams.http.v3.HttpProtocolOptions": map[string]any{
				"@type":                "type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions",
				"explicit_http_config": map[string]any{"http2_protocol_options": map[string]any{}},
			},
		},
		"load_assignment": map[string]any{
			"cluster_name": name,
			"endpoints": []any{map[string]any{"lb_endpoints": []any{map[string]any{"endpoint": map[string]any{
				"address": map[string]any{"socket_address": map[string]any{"address": host, "port_value": port}},
			}}}}},
		},
	}
}

// clusterEnvoyFilter is the spec of Istio's EnvoyFilter adding the clusters to the
// Gateway's proxy.
func clusterEnvoyFilter(out GatewayOutput, opts Options) map[string]any {
	patches := []any{}
	for _, name := range clusterNames(out, opts) {
		patches = append(patches, map[string]any{
			"applyTo": "CLUSTER",
			"match":   map[string]any{"context": "GATEWAY"},
			"patch":   map[string]any{"operation": "ADD", "value": cluster(name, opts)},
		})
	}
	return map[string]any{"targetRefs": []any{gatewayRef(out.Gateway)}, "configPatches": patches}
}

// clusterPatchPolicy is the spec of Envoy Gateway's EnvoyPatchPolicy adding the clusters to
// the Gateway's proxy.
func clusterPatchPolicy(out GatewayOutput, opts Options) map[string]any {
	patches := []any{}
	for _, name := range clusterNames(out, opts) {
		patches = append(patches, map[string]any{
			"type":      "type.googleapis.com/envoy.config.cluster.v3.Cluster",
			"name":      name,
			"operation": map[string]any{"op": "add", "path": "", "value": cluster(name, opts)},
		})
	}
	return map[string]any{"targetRef": gatewayRef(out.Gateway), "type": "JSONPatch", "jsonPatches": patches}
}

// splitHostPort splits "host:port", with a port from 1 to 65535.
func splitHostPort(addr string) (string, int, error) {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, err
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 1 || port > 65535 || host == "" {
		return "", 0, fmt.Errorf("want host:port with a port from 1 to 65535")
	}
	return host, port, nil
}
