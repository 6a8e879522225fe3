package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/kuadrant"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/wasmshim"
)

// dataPlaneOptions wire both data planes, with the rate-limit service's clusters.
var dataPlaneOptions = DataPlaneOptions{
	DataPlanes:       AllDataPlanes,
	FilterURL:        "oci://registry.example.com/rlpkit-filter:v1",
	RateLimitAddress: "rlpkit-ratelimit.dataplane.svc.cluster.local:8081",
}

// getUnstructured reads an object of kind, or says it is not there yet.
func getUnstructured(ctx context.Context, c client.Client, kind schema.GroupVersionKind, ns, name string) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(kind)
	if err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, u); err != nil {
		return nil, fmt.Errorf("%s %s/%s: %w", kind.Kind, ns, name, err)
	}
	return u, nil
}

// decodeAs decodes an unstructured value into out, through JSON.
func decodeAs(v any, out any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

// TestDataPlane: with both data planes' CRDs installed (as Istio and Envoy Gateway publish
// them), the controller writes per Gateway Istio's WasmPlugins of rlpkit's filter and of
// wasm-shim and the EnvoyFilter of the rate-limit cluster, and Envoy Gateway's
// EnvoyExtensionPolicy and EnvoyPatchPolicy, with the configurations of the ConfigMap
// inline; the API server accepts them, the policies are enforced, a hand edit is put back,
// and once in step nothing more is written.
func TestDataPlane(t *testing.T) {
	cfg := apiServer(t)
	c := direct(t, cfg)
	ctx := context.Background()
	ns := namespace(t, c, "dataplane")
	ctl := startControllerSyncing(t, cfg, Options{DataPlane: dataPlaneOptions}, nil, ns)
	create(t, c, gateway(ns, "gw", "*.example.com"),
		route(ns, "shop", "shop.example.com", "/", "gw"), rlp(t, ns, "shop", "HTTPRoute", "shop", limits("default", 7, 60)),
		route(ns, "api", "api.example.com", "/", "gw"), rlpV1(t, ns, "api", "HTTPRoute", "api", limitsV1("per-client", 3, "1m")))

	eventually(t, settle, func() error {
		if err := wantCondition(ctx, c, ns, "shop", policy.ConditionEnforced, metav1.ConditionTrue, policy.ReasonEnforced); err != nil {
			return err
		}
		if err := wantConditionV1(ctx, c, ns, "api", kuadrant.ConditionEnforced, metav1.ConditionTrue, kuadrant.ReasonEnforced); err != nil {
			return err
		}
		return checkDataPlane(ctx, c, ns)
	})

	// A hand edit of a field the controller writes is put back.
	wp, err := getUnstructured(ctx, c, WasmPluginKind, ns, "rlpkit-gw")
	if err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedField(wp.Object, "oci://elsewhere/filter:v0", "spec", "url"); err != nil {
		t.Fatal(err)
	}
	if err := c.Update(ctx, wp); err != nil {
		t.Fatal(err)
	}
	eventually(t, settle, func() error { return checkDataPlane(ctx, c, ns) })

	// In step: events that change nothing compiled bring no write.
	time.Sleep(2 * time.Second)
	before, syncs := ctl.writeCount(), ctl.syncs.Load()
	gw := gateway(ns, "gw", "")
	if err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: "gw"}, gw); err != nil {
		t.Fatal(err)
	}
	gw.Annotations = map[string]string{"touched": "yes"}
	if err := c.Update(ctx, gw); err != nil {
		t.Fatal(err)
	}
	eventually(t, settle, func() error {
		if ctl.syncs.Load() == syncs {
			return errNotYet
		}
		return nil
	})
	time.Sleep(2 * time.Second)
	if n := ctl.writeCount() - before; n != 0 {
		t.Errorf("the controller sent %d writes once in step, want none", n)
	}
	if errs := ctl.syncErrors(); len(errs) > 0 {
		t.Errorf("sync errors: %v", errs)
	}
}

// checkDataPlane checks the data-plane objects of Gateway gw in ns against its ConfigMap.
func checkDataPlane(ctx context.Context, c client.Client, ns string) error {
	cm, err := readConfigMap(ctx, c, ns, "gw")
	if err != nil {
		return err
	}
	addr := "@" + dataPlaneOptions.RateLimitAddress
	wantClusters := []string{"rate-limit-cluster" + addr, "kuadrant-ratelimit-service" + addr}
	wantRefs := []any{map[string]any{"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": "gw"}}

	filter, err := getUnstructured(ctx, c, WasmPluginKind, ns, "rlpkit-gw")
	if err != nil {
		return err
	}
	if url, _, _ := unstructured.NestedString(filter.Object, "spec", "url"); url != dataPlaneOptions.FilterURL {
		return fmt.Errorf("WasmPlugin rlpkit-gw: url %q, want %q", url, dataPlaneOptions.FilterURL)
	}
	if refs, _, _ := unstructured.NestedSlice(filter.Object, "spec", "targetRefs"); !cmp.Equal(wantRefs, refs) {
		return fmt.Errorf("WasmPlugin rlpkit-gw targets %v", refs)
	}
	if err := samePluginConfig("WasmPlugin rlpkit-gw", filter.Object["spec"].(map[string]any)["pluginConfig"], cm.config); err != nil {
		return err
	}
	shim, err := getUnstructured(ctx, c, WasmPluginKind, ns, "rlpkit-gw-kuadrant")
	if err != nil {
		return err
	}
	if err := sameWasm("WasmPlugin rlpkit-gw-kuadrant", shim.Object["spec"].(map[string]any)["pluginConfig"], cm.wasm); err != nil {
		return err
	}
	ef, err := getUnstructured(ctx, c, EnvoyFilterKind, ns, "rlpkit-gw-ratelimit")
	if err != nil {
		return err
	}
	patches, _, _ := unstructured.NestedSlice(ef.Object, "spec", "configPatches")
	if got := clustersOf(patches, "patch"); !cmp.Equal(got, wantClusters) {
		return fmt.Errorf("EnvoyFilter rlpkit-gw-ratelimit adds the clusters %v", got)
	}

	eep, err := getUnstructured(ctx, c, EnvoyExtensionPolicyKind, ns, "rlpkit-gw")
	if err != nil {
		return err
	}
	wasm, _, _ := unstructured.NestedSlice(eep.Object, "spec", "wasm")
	if len(wasm) != 2 {
		return fmt.Errorf("EnvoyExtensionPolicy rlpkit-gw has %d wasm extensions, want 2", len(wasm))
	}
	if img, _, _ := unstructured.NestedString(wasm[0].(map[string]any), "code", "image", "url"); img != "registry.example.com/rlpkit-filter:v1" {
		return fmt.Errorf("EnvoyExtensionPolicy rlpkit-gw: the filter's image %q", img)
	}
	if err := samePluginConfig("EnvoyExtensionPolicy rlpkit-gw", wasm[0].(map[string]any)["config"], cm.config); err != nil {
		return err
	}
	if err := sameWasm("EnvoyExtensionPolicy rlpkit-gw", wasm[1].(map[string]any)["config"], cm.wasm); err != nil {
		return err
	}
	epp, err := getUnstructured(ctx, c, EnvoyPatchPolicyKind, ns, "rlpkit-gw-ratelimit")
	if err != nil {
		return err
	}
	jp, _, _ := unstructured.NestedSlice(epp.Object, "spec", "jsonPatches")
	if got := clustersOf(jp, "operation"); !cmp.Equal(got, wantClusters) {
		return fmt.Errorf("EnvoyPatchPolicy rlpkit-gw-ratelimit adds the clusters %v", got)
	}
	for _, o := range []*unstructured.Unstructured{filter, shim, ef, eep, epp} {
		if ref := metav1.GetControllerOf(o); ref == nil || ref.Name != "gw" || ref.Kind != "Gateway" {
			return fmt.Errorf("%s %s is not owned by the Gateway", o.GetKind(), o.GetName())
		}
	}
	return nil
}

// clustersOf returns "name@host:port" of the clusters of patches, each at field.value.
func clustersOf(patches []any, field string) []string {
	var out []string
	for _, p := range patches {
		cl, _, _ := unstructured.NestedMap(p.(map[string]any), field, "value")
		var c struct {
			Name           string `json:"name"`
			LoadAssignment struct {
				Endpoints []struct {
					LbEndpoints []struct {
						Endpoint struct {
							Address struct {
								SocketAddress struct {
									Address   string `json:"address"`
									PortValue int    `json:"port_value"`
								} `json:"socket_address"`
							} `json:"address"`
						} `json:"endpoint"`
					} `json:"lb_endpoints"`
				} `json:"endpoints"`
			} `json:"load_assignment"`
		}
		if decodeAs(cl, &c) != nil || len(c.LoadAssignment.Endpoints) != 1 || len(c.LoadAssignment.Endpoints[0].LbEndpoints) != 1 {
			out = append(out, "malformed")
			continue
		}
		a := c.LoadAssignment.Endpoints[0].LbEndpoints[0].Endpoint.Address.SocketAddress
		out = append(out, fmt.Sprintf("%s@%s:%d", c.Name, a.Address, a.PortValue))
	}
	return out
}

// samePluginConfig checks that an inline configuration is the ConfigMap's PluginConfig.
func samePluginConfig(where string, inline any, want *descriptor.PluginConfig) error {
	b, err := json.Marshal(inline)
	if err != nil {
		return err
	}
	got, err := descriptor.Decode(b)
	if err != nil {
		return fmt.Errorf("%s: the filter cannot read its configuration: %w", where, err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		return fmt.Errorf("%s: the configuration differs from pluginconfig.yaml (-ConfigMap +inline):\n%s", where, diff)
	}
	return nil
}

// sameWasm checks that an inline configuration is the ConfigMap's wasm-shim configuration.
func sameWasm(where string, inline any, want *wasmshim.Config) error {
	var got wasmshim.Config
	if err := decodeAs(inline, &got); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	if _, err := wasmshim.New(&got); err != nil {
		return fmt.Errorf("%s: wasm-shim cannot read its configuration: %w", where, err)
	}
	w, _ := yaml.Marshal(want)
	g, _ := yaml.Marshal(&got)
	if diff := cmp.Diff(string(w), string(g)); diff != "" {
		return fmt.Errorf("%s: the configuration differs from kuadrant-wasm.yaml (-ConfigMap +inline):\n%s", where, diff)
	}
	return nil
}
