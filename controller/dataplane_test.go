package controller

import (
	"context"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/rlpkit/rlpkit/kuadrant"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policy/kuadrantv1"
	"github.com/rlpkit/rlpkit/policy/kuadrantv1alpha1"
)

// fakeWithDataPlanes returns a fake client that serves the data planes' kinds too.
func fakeWithDataPlanes(t *testing.T, objs ...client.Object) client.Client {
	t.Helper()
	for _, o := range objs {
		if o.GetUID() == "" {
			o.SetUID(types.UID("uid-" + key(o)))
		}
	}
	s := testScheme(t)
	mapper := meta.NewDefaultRESTMapper(nil)
	for gvk := range s.AllKnownTypes() {
		mapper.Add(gvk, meta.RESTScopeNamespace)
	}
	for _, d := range AllDataPlanes {
		for _, gvk := range d.Kinds() {
			mapper.Add(gvk, meta.RESTScopeNamespace)
		}
	}
	return fake.NewClientBuilder().WithScheme(s).WithRESTMapper(mapper).WithObjects(objs...).
		WithStatusSubresource(&policy.RateLimitPolicy{}, &kuadrantv1.RateLimitPolicy{}, &kuadrantv1alpha1.TokenRateLimitPolicy{}).Build()
}

// managedOf lists the managed objects of kind.
func managedOf(t *testing.T, c client.Client, kind string) []string {
	t.Helper()
	var names []string
	for _, d := range AllDataPlanes {
		for _, gvk := range d.Kinds() {
			if gvk.Kind != kind {
				continue
			}
			var list unstructured.UnstructuredList
			list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
			if err := c.List(context.Background(), &list, client.MatchingLabels{LabelManagedBy: ManagerName}); err != nil {
				t.Fatal(err)
			}
			for _, u := range list.Items {
				names = append(names, u.GetName())
			}
		}
	}
	return names
}

// TestDataPlaneTooLarge: a filter configuration over the size one object may hold is not
// written: the policies it would enforce are Enforced=False, naming the object and its size,
// while those of the other filter, which fits, are enforced, and the ConfigMap is written.
// Once the configuration fits again, it is written and its policies enforced.
func TestDataPlaneTooLarge(t *testing.T) {
	ctx := context.Background()
	const ns = "ns"
	objs := []client.Object{gateway(ns, "gw", "*.example.com"),
		route(ns, "api", "api.example.com", "/", "gw"), rlpV1(t, ns, "api", "HTTPRoute", "api", limitsV1("per-client", 3, "1m"))}
	objs = append(objs, routesWithPolicies(t, ns, "gw", 30, false)...)
	c := fakeWithDataPlanes(t, objs...)
	opts := Options{DataPlane: DataPlaneOptions{DataPlanes: []DataPlane{DataPlaneIstio}, FilterURL: "oci://registry.example.com/rlpkit-filter:v1"}}
	s := &Syncer{maxInline: 4 << 10}
	_, err := s.Sync(ctx, c, opts)
	if err == nil || !strings.Contains(err.Error(), "WasmPlugin ns/rlpkit-gw would hold") {
		t.Fatalf("Sync = %v, want the too large WasmPlugin named", err)
	}
	cond := enforcedOf(t, c, ns, "r0003", false)
	if cond == nil || cond.Status != "False" || cond.Reason != string(ReasonWriteFailed) || !strings.Contains(cond.Message, "WasmPlugin ns/rlpkit-gw would hold") || !strings.Contains(cond.Message, "more than the 4096 one object may hold") {
		t.Errorf("Enforced = %+v, want False naming the WasmPlugin and the size", cond)
	}
	if cond := enforcedOf(t, c, ns, "api", true); cond == nil || cond.Status != "True" || cond.Reason != kuadrant.ReasonEnforced {
		t.Errorf("the kuadrant.io/v1 policy, whose wasm-shim WasmPlugin fits: Enforced = %+v, want True", cond)
	}
	if got := managedOf(t, c, "WasmPlugin"); len(got) != 1 || got[0] != "rlpkit-gw-kuadrant" {
		t.Errorf("WasmPlugins %v, want only rlpkit-gw-kuadrant", got)
	}
	if _, ok := managedConfigMaps(t, c, ns)["rlpkit-gw"]; !ok {
		t.Error("the ConfigMap was not written")
	}

	s.maxInline = 0
	if _, err := s.Sync(ctx, c, opts); err != nil {
		t.Fatal(err)
	}
	if cond := enforcedOf(t, c, ns, "r0003", false); cond == nil || cond.Status != "True" {
		t.Errorf("once the configuration fits: Enforced = %+v, want True", cond)
	}

	// Wiring only kuadrant.io/v1's filter now: the WasmPlugin of the other API goes.
	opts.APIs = []API{APIV1}
	sum, err := s.Sync(ctx, c, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := managedOf(t, c, "WasmPlugin"); sum.DataPlaneDeleted != 1 || len(got) != 1 || got[0] != "rlpkit-gw-kuadrant" {
		t.Errorf("after leaving apim.kuadrant.io/v1alpha1 out: %d deleted, WasmPlugins %v, want rlpkit-gw deleted", sum.DataPlaneDeleted, got)
	}
}

// TestDetectDataPlanes: a data plane is wired when the API server serves its filters' kind,
// and its cluster's kind too when a rate-limit address is given.
func TestDetectDataPlanes(t *testing.T) {
	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(WasmPluginKind, meta.RESTScopeNamespace) // Istio without EnvoyFilter
	mapper.Add(EnvoyExtensionPolicyKind, meta.RESTScopeNamespace)
	mapper.Add(EnvoyPatchPolicyKind, meta.RESTScopeNamespace)
	for _, tc := range []struct {
		withCluster bool
		found       []DataPlane
		missing     int
	}{
		{false, []DataPlane{DataPlaneIstio, DataPlaneEnvoyGateway}, 0},
		{true, []DataPlane{DataPlaneEnvoyGateway}, 1},
	} {
		found, missing, err := DetectDataPlanes(mapper, AllDataPlanes, tc.withCluster)
		if err != nil || !slices.Equal(found, tc.found) || len(missing) != tc.missing {
			t.Errorf("DetectDataPlanes(withCluster=%v) = %v, %v, %v; want %v and %d missing", tc.withCluster, found, missing, err, tc.found, tc.missing)
		}
		if tc.missing == 1 && !strings.Contains(missing[0], "EnvoyFilter networking.istio.io/v1alpha3 is not served") {
			t.Errorf("missing = %q, want the EnvoyFilter kind named", missing)
		}
	}
	opts := DataPlaneOptions{DataPlanes: AllDataPlanes}
	if got := opts.Kinds(); !slices.Equal(got, []schema.GroupVersionKind{WasmPluginKind, EnvoyExtensionPolicyKind}) {
		t.Errorf("Kinds without a rate-limit address = %v", got)
	}
	opts.RateLimitAddress = "rls:8081"
	if got := opts.Kinds(); len(got) != 4 {
		t.Errorf("Kinds with a rate-limit address = %v, want all four", got)
	}
}
