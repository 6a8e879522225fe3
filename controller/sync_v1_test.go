package controller_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	"github.com/rlpkit/rlpkit/controller"
	"github.com/rlpkit/rlpkit/kuadrant"
	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/merge"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policy/kuadrantv1"
)

// objectsV1 adds to objects kuadrant.io/v1 policies: one on the route shop (beside the
// v1alpha1 policy of the same name), one whose target is missing, and one whose predicate
// does not type-check.
const objectsV1 = objects + `
---
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata: {namespace: ns, name: shop, generation: 2, uid: shop-v1-uid}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: shop}
  limits:
    per-ip:
      rates: [{limit: 2, window: 1m}]
      counters: [{expression: source.remote_address}]
      when: [{predicate: "request.method == 'POST'"}]
---
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata: {namespace: ns, name: lost-v1, generation: 1, uid: lost-v1-uid}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: gone}
  limits:
    all: {rates: [{limit: 1, window: 1s}]}
---
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata: {namespace: ns, name: bad-v1, generation: 4, uid: bad-v1-uid}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  limits:
    typo:
      rates: [{limit: 1, window: 1d}]
`

// TestSyncV1: kuadrant.io/v1 policies beside apim.kuadrant.io/v1alpha1 ones get
// kuadrant-operator's conditions and observedGeneration, and the Gateway's ConfigMap holds
// what rlpkit compile -o kuadrant prints for them, plus every limit in limits.yaml.
func TestSyncV1(t *testing.T) {
	ctx := context.Background()
	c, writes := fakeClusterOf(t, objectsV1)
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var s controller.Syncer
	sum, err := s.Sync(ctx, c, controller.Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := [5]int{sum.Policies, sum.PoliciesV1, sum.StatusPatches, sum.ConfigMapsCreated, sum.ConfigMapsUpdated}, [5]int{2, 3, 5, 2, 0}; got != want {
		t.Errorf("Sync: v1alpha1 and v1 policies read, status patches, ConfigMaps created, updated = %v, want %v", got, want)
	}

	get := func(name string) kuadrantv1.RateLimitPolicyStatus {
		t.Helper()
		var p kuadrantv1.RateLimitPolicy
		if err := c.Get(ctx, types.NamespacedName{Namespace: "ns", Name: name}, &p); err != nil {
			t.Fatal(err)
		}
		return p.Status
	}
	at := metav1.NewTime(now)
	tests := []struct {
		name string
		want kuadrantv1.RateLimitPolicyStatus
	}{
		{"shop", kuadrantv1.RateLimitPolicyStatus{ObservedGeneration: 2, Conditions: []metav1.Condition{
			{Type: "Accepted", Status: "True", ObservedGeneration: 2, LastTransitionTime: at, Reason: "Accepted", Message: "RateLimitPolicy has been accepted"},
			{Type: "Enforced", Status: "True", ObservedGeneration: 2, LastTransitionTime: at, Reason: "Enforced", Message: "RateLimitPolicy has been successfully enforced"},
		}}},
		{"lost-v1", kuadrantv1.RateLimitPolicyStatus{ObservedGeneration: 1, Conditions: []metav1.Condition{
			{Type: "Accepted", Status: "False", ObservedGeneration: 1, LastTransitionTime: at, Reason: "TargetNotFound", Message: "RateLimitPolicy target gone was not found"},
		}}},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, get(tc.name)); diff != "" {
			t.Errorf("status of kuadrant.io/v1 ns/%s (-want +got):\n%s", tc.name, diff)
		}
	}
	bad := get("bad-v1")
	if cond := meta.FindStatusCondition(bad.Conditions, "Accepted"); cond == nil || cond.Status != "False" || cond.Reason != "Invalid" || cond.ObservedGeneration != 4 ||
		!strings.Contains(cond.Message, "spec.limits[typo].rates[0].window") || bad.ObservedGeneration != 4 {
		t.Errorf("status of kuadrant.io/v1 ns/bad-v1 = %+v, want Accepted False (Invalid) naming spec.limits[typo].rates[0].window, observedGeneration 4", bad)
	}
	// The v1alpha1 policy of the same name has its own status.
	var alpha policy.RateLimitPolicy
	if err := c.Get(ctx, types.NamespacedName{Namespace: "ns", Name: "shop"}, &alpha); err != nil {
		t.Fatal(err)
	}
	if cond := meta.FindStatusCondition(alpha.Status.Conditions, "Enforced"); cond == nil || cond.Reason != string(policy.ReasonEnforced) || cond.ObservedGeneration != 3 {
		t.Errorf("the v1alpha1 policy ns/shop: Enforced = %+v, want Enforced at generation 3", cond)
	}

	// The ConfigMap holds what compiling the same objects from a file gives.
	want := compileFile(t, objectsV1)
	var cm corev1.ConfigMap
	if err := c.Get(ctx, types.NamespacedName{Namespace: "ns", Name: "rlpkit-gw"}, &cm); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want["ns/gw"], cm.Data); diff != "" {
		t.Errorf("ConfigMap ns/rlpkit-gw (-compiled from a file +written):\n%s", diff)
	}
	if !strings.Contains(cm.Data[controller.KeyKuadrantLimits], `descriptors[0]["limit.per_ip__`) || !strings.Contains(cm.Data[controller.KeyLimits], "namespace: ns/shop\n") ||
		!strings.Contains(cm.Data[controller.KeyLimits], "namespace: ns/gw#ns/shop\n") {
		t.Errorf("the ConfigMap lacks the v1 limit or one API's limits in limits.yaml:\n%s", cm.Data)
	}
	if err := c.Get(ctx, types.NamespacedName{Namespace: "ns", Name: "rlpkit-idle"}, &cm); err != nil {
		t.Fatal(err)
	}
	if got := cm.Data[controller.KeyKuadrantLimits]; got != "[]\n" || !strings.Contains(cm.Data[controller.KeyKuadrantWasm], "actionSets: []") {
		t.Errorf("a Gateway without v1 policies: %s = %q and %s\n%s, want [] and no action sets", controller.KeyKuadrantLimits, got, controller.KeyKuadrantWasm, cm.Data[controller.KeyKuadrantWasm])
	}

	t.Run("served from the mount", func(t *testing.T) {
		if err := c.Get(ctx, types.NamespacedName{Namespace: "ns", Name: "rlpkit-gw"}, &cm); err != nil {
			t.Fatal(err)
		}
		// rlpkit serve --limits takes the file only when it identifies as a limits file.
		if fc, err := policy.Identify([]byte(cm.Data[controller.KeyLimits])); err != nil || fc.Content != policy.ContentLimits {
			t.Errorf("policy.Identify(%s) = %v, %v, want a limits file", controller.KeyLimits, fc, err)
		}
		codes := controller.ServeFromConfigMap(t, &cm, "POST", "shop.example.com", "/cart", "10.0.0.1:1234", 3)
		if diff := cmp.Diff([]string{"OK", "OK", "OVER_LIMIT"}, codes); diff != "" {
			t.Errorf("three POSTs through kuadrant-wasm.yaml and limits.yaml (-want +got):\n%s", diff)
		}
	})

	before := *writes
	if sum, err := s.Sync(ctx, c, controller.Options{Now: func() time.Time { return now.Add(time.Hour) }}); err != nil || *writes != before {
		t.Errorf("second Sync of unchanged objects: %d writes (%+v, %v), want none", *writes-before, sum, err)
	}
}

// TestSyncOneAPI: with one RateLimitPolicy API read, the other's policies are left alone
// and the ConfigMap holds the keys of the API read.
func TestSyncOneAPI(t *testing.T) {
	tests := []struct {
		api          controller.API
		keys         []string
		patched      int
		untouchedV1  bool
		untouchedOld bool
	}{
		{controller.APIV1alpha1, []string{controller.KeyLimits, controller.KeyPluginConfig}, 2, true, false},
		{controller.APIV1, []string{controller.KeyKuadrantLimits, controller.KeyKuadrantWasm, controller.KeyLimits}, 3, false, true},
	}
	for _, tc := range tests {
		t.Run(string(tc.api), func(t *testing.T) {
			ctx := context.Background()
			c, _ := fakeClusterOf(t, objectsV1)
			var s controller.Syncer
			sum, err := s.Sync(ctx, c, controller.Options{APIs: []controller.API{tc.api}})
			if err != nil {
				t.Fatal(err)
			}
			if sum.StatusPatches != tc.patched {
				t.Errorf("Sync(APIs: %s) patched %d statuses, want %d", tc.api, sum.StatusPatches, tc.patched)
			}
			var cm corev1.ConfigMap
			if err := c.Get(ctx, types.NamespacedName{Namespace: "ns", Name: "rlpkit-gw"}, &cm); err != nil {
				t.Fatal(err)
			}
			var keys []string
			for k := range cm.Data {
				keys = append(keys, k)
			}
			if diff := cmp.Diff(tc.keys, keys, cmpSorted); diff != "" {
				t.Errorf("Sync(APIs: %s): ConfigMap keys (-want +got):\n%s", tc.api, diff)
			}
			var v1 kuadrantv1.RateLimitPolicy
			if err := c.Get(ctx, types.NamespacedName{Namespace: "ns", Name: "shop"}, &v1); err != nil {
				t.Fatal(err)
			}
			if got := len(v1.Status.Conditions) == 0; got != tc.untouchedV1 {
				t.Errorf("Sync(APIs: %s): the v1 policy's status left alone = %v, want %v", tc.api, got, tc.untouchedV1)
			}
			var old policy.RateLimitPolicy
			if err := c.Get(ctx, types.NamespacedName{Namespace: "ns", Name: "shop"}, &old); err != nil {
				t.Fatal(err)
			}
			if got := len(old.Status.Conditions) == 0; got != tc.untouchedOld {
				t.Errorf("Sync(APIs: %s): the v1alpha1 policy's status left alone = %v, want %v", tc.api, got, tc.untouchedOld)
			}
		})
	}
	if _, err := controller.Read(context.Background(), nil, "kuadrant.io/v2"); err == nil || !strings.Contains(err.Error(), `unknown policy API "kuadrant.io/v2"`) {
		t.Errorf("Read(kuadrant.io/v2) = %v, want an unknown-API error", err)
	}
}

var cmpSorted = cmp.Transformer("sorted", func(in []string) []string {
	out := append([]string(nil), in...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
})

// compileFile compiles docs as rlpkit compile and rlpkit compile -o kuadrant read them
// from a file, and returns, by Gateway, the ConfigMap data they make: the PluginConfig,
// the wasm-shim configuration, the v1 limits, and both APIs' limits.
func compileFile(t *testing.T, docs string) map[string]map[string]string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "objects.yaml")
	if err := os.WriteFile(file, []byte(docs), 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := policy.Read([]string{file}, nil)
	if set == nil { // an invalid policy is an error, and stays in the set, reported Invalid
		t.Fatal(err)
	}
	res, err := merge.Compile(set, merge.Options{})
	if err != nil {
		t.Fatal(err)
	}
	v1 := kuadrant.Compile(set, kuadrant.Options{})
	enc := func(v any) string {
		b, err := yaml.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	out := map[string]map[string]string{}
	for _, gw := range res.Gateways {
		out[gw.Gateway] = map[string]string{controller.KeyPluginConfig: enc(gw.PluginConfig)}
	}
	for _, gw := range v1.Gateways {
		all := []limitador.Limit{}
		for _, m := range res.Gateways {
			if m.Gateway == gw.Gateway {
				all = append(all, m.Limits...)
			}
		}
		all = append(all, gw.Limits...)
		out[gw.Gateway][controller.KeyKuadrantWasm] = enc(gw.Wasm)
		out[gw.Gateway][controller.KeyKuadrantLimits] = enc(gw.Limits)
		out[gw.Gateway][controller.KeyLimits] = enc(all)
	}
	return out
}
