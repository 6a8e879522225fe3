package controller_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/rlpkit/rlpkit/controller"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policy/kuadrantv1"
	"github.com/rlpkit/rlpkit/policy/kuadrantv1alpha1"
)

const objects = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {namespace: ns, name: gw, uid: gw-uid}
spec:
  gatewayClassName: any
  listeners: [{name: http, port: 80, protocol: HTTP, hostname: "*.example.com"}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {namespace: ns, name: idle, uid: idle-uid}
spec:
  gatewayClassName: any
  listeners: [{name: http, port: 80, protocol: HTTP}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {namespace: ns, name: shop}
spec:
  parentRefs: [{name: gw}]
  hostnames: [shop.example.com]
  rules: [{matches: [{path: {type: PathPrefix, value: /}}]}]
---
apiVersion: apim.kuadrant.io/v1alpha1
kind: RateLimitPolicy
metadata: {namespace: ns, name: shop, generation: 3, uid: shop-uid}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: shop}
  default:
    gatewayActions:
    - configurations:
      - actions:
        - generic_key: {descriptor_key: shop, descriptor_value: "yes"}
    rateLimits:
    - {conditions: [], variables: [], max_value: 5, seconds: 10}
---
apiVersion: apim.kuadrant.io/v1alpha1
kind: RateLimitPolicy
metadata: {namespace: ns, name: lost, generation: 1, uid: lost-uid}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: gone}
  default:
    rateLimits:
    - {conditions: [], variables: [], max_value: 1, seconds: 1}
`

// fakeCluster returns a fake client holding the objects, and a counter of its writes.
func fakeCluster(t *testing.T, extra ...client.Object) (client.Client, *int) {
	t.Helper()
	return fakeClusterOf(t, objects, extra...)
}

// fakeClusterOf returns a fake client holding the objects of docs (YAML documents separated
// by "---" lines) and extra, and a counter of its writes.
func fakeClusterOf(t *testing.T, docs string, extra ...client.Object) (client.Client, *int) {
	t.Helper()
	s, err := controller.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	var objs []client.Object
	for _, doc := range strings.Split(docs, "\n---\n") {
		var head metav1.TypeMeta
		if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
			t.Fatal(err)
		}
		var o client.Object
		switch {
		case head.Kind == "Gateway":
			o = &gatewayv1.Gateway{}
		case head.Kind == "HTTPRoute":
			o = &gatewayv1.HTTPRoute{}
		case head.Kind == kuadrantv1alpha1.Kind:
			o = &kuadrantv1alpha1.TokenRateLimitPolicy{}
		case head.Kind == kuadrantv1.AuthPolicyKind: // no runtime.Object: read unstructured, as the controller does
			o = &unstructured.Unstructured{}
		case head.APIVersion == kuadrantv1.GroupVersion.String():
			o = &kuadrantv1.RateLimitPolicy{}
		default:
			o = &policy.RateLimitPolicy{}
		}
		if err := yaml.UnmarshalStrict([]byte(doc), o); err != nil {
			t.Fatal(err)
		}
		objs = append(objs, o)
	}
	writes := 0
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(append(objs, extra...)...).
		WithStatusSubresource(&policy.RateLimitPolicy{}, &kuadrantv1.RateLimitPolicy{}, &kuadrantv1alpha1.TokenRateLimitPolicy{}).
		WithInterceptorFuncs(countWrites(&writes)).Build()
	return c, &writes
}

func TestSync(t *testing.T) {
	ctx := context.Background()
	c, writes := fakeCluster(t)
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var s controller.Syncer
	sum, err := s.Sync(ctx, c, controller.Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := [3]int{sum.StatusPatches, sum.ConfigMapsCreated, sum.ConfigMapsUpdated}, [3]int{2, 2, 0}; got != want {
		t.Errorf("first Sync: status patches, ConfigMaps created, updated = %v, want %v", got, want)
	}

	var cm corev1.ConfigMap
	if err := c.Get(ctx, types.NamespacedName{Namespace: "ns", Name: "rlpkit-gw"}, &cm); err != nil {
		t.Fatal(err)
	}
	wantLimits := "- conditions: []\n  max_value: 5\n  name: ns/shop spec.default.rateLimits[0]\n  namespace: ns/gw#ns/shop\n  seconds: 10\n  variables: []\n"
	if diff := cmp.Diff(wantLimits, cm.Data[controller.KeyLimits]); diff != "" {
		t.Errorf("limits.yaml (-want +got):\n%s", diff)
	}
	if !strings.Contains(cm.Data[controller.KeyPluginConfig], "rateLimitDomain: ns/gw#ns/shop") {
		t.Errorf("pluginconfig.yaml lacks the route's domain:\n%s", cm.Data[controller.KeyPluginConfig])
	}
	if o := cm.OwnerReferences; len(o) != 1 || o[0].UID != "gw-uid" || o[0].Kind != "Gateway" {
		t.Errorf("owners = %+v, want the Gateway gw-uid", o)
	}
	if err := c.Get(ctx, types.NamespacedName{Namespace: "ns", Name: "rlpkit-idle"}, &cm); err != nil {
		t.Fatal(err)
	}
	if got := cm.Data; got[controller.KeyLimits] != "[]\n" || got[controller.KeyPluginConfig] != "failureModeDeny: false\n" {
		t.Errorf("a Gateway without policies: data = %q, want limits [] and no policies", got)
	}

	var p policy.RateLimitPolicy
	if err := c.Get(ctx, types.NamespacedName{Namespace: "ns", Name: "lost"}, &p); err != nil {
		t.Fatal(err)
	}
	want := []metav1.Condition{{Type: "Accepted", Status: "False", ObservedGeneration: 1, LastTransitionTime: metav1.NewTime(now), Reason: "TargetNotFound", Message: "HTTPRoute ns/gone is not among the inputs"}}
	if diff := cmp.Diff(want, p.Status.Conditions); diff != "" {
		t.Errorf("conditions of ns/lost (-want +got):\n%s", diff)
	}

	// Nothing changed: nothing is written, whatever the time.
	before := *writes
	later := now.Add(time.Hour)
	sum, err = s.Sync(ctx, c, controller.Options{Now: func() time.Time { return later }})
	if err != nil {
		t.Fatal(err)
	}
	if n := *writes - before; n != 0 || sum.StatusPatches+sum.ConfigMapsCreated+sum.ConfigMapsUpdated != 0 {
		t.Errorf("second Sync of unchanged objects: %d writes (%+v), want none", n, sum)
	}

	// A ConfigMap edited by hand is put back.
	if err := c.Get(ctx, types.NamespacedName{Namespace: "ns", Name: "rlpkit-gw"}, &cm); err != nil {
		t.Fatal(err)
	}
	cm.Data[controller.KeyLimits] = "[]\n"
	if err := c.Update(ctx, &cm); err != nil {
		t.Fatal(err)
	}
	sum, err = s.Sync(ctx, c, controller.Options{})
	if err != nil || sum.ConfigMapsUpdated != 1 {
		t.Errorf("Sync after a hand edit = %+v, %v, want one ConfigMap updated", sum, err)
	}
}

// TestSyncStaleCache: a client whose reads lag behind its writes (a cache that has not seen
// them yet) does not make Sync write the same thing again.
func TestSyncStaleCache(t *testing.T) {
	ctx := context.Background()
	c, writes := fakeCluster(t)
	stale, _ := fakeCluster(t) // reads the state from before the first Sync's writes
	var s controller.Syncer
	opts := controller.Options{Now: func() time.Time { return time.Unix(1e9, 0) }}
	if _, err := s.Sync(ctx, c, opts); err != nil {
		t.Fatal(err)
	}
	// The second run reads the objects as they were before the first run's writes: it must
	// neither patch the statuses again nor create the ConfigMaps again.
	before := *writes
	sum, err := s.Sync(ctx, readsFrom{Client: c, reader: stale}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if n := *writes - before; n != 0 {
		t.Errorf("Sync over a stale cache wrote %d times (%+v), want 0", n, sum)
	}
}

// TestSyncStaleCacheNewContent: a ConfigMap Sync created, which the cache has not seen yet,
// is not created again when its content has changed since (a policy edited, a flag
// changed): the create would fail with AlreadyExists. The cache's event for the ConfigMap
// brings the run that updates it.
func TestSyncStaleCacheNewContent(t *testing.T) {
	ctx := context.Background()
	c, writes := fakeCluster(t)
	stale, _ := fakeCluster(t) // reads the state from before the first Sync's writes
	var s controller.Syncer
	opts := controller.Options{Now: func() time.Time { return time.Unix(1e9, 0) }}
	if _, err := s.Sync(ctx, c, opts); err != nil {
		t.Fatal(err)
	}
	before := *writes
	opts.Merge.UpstreamCluster = "another-cluster" // new PluginConfig content
	sum, err := s.Sync(ctx, readsFrom{Client: c, reader: stale}, opts)
	if err != nil {
		t.Fatalf("Sync over a stale cache with new content = %v, want no error", err)
	}
	if n := *writes - before; n != 0 {
		t.Errorf("Sync over a stale cache with new content wrote %d times (%+v), want 0", n, sum)
	}
	// Once the cache has the ConfigMaps, the new content is written (the idle Gateway's
	// PluginConfig names no cluster: it does not change).
	sum, err = s.Sync(ctx, c, opts)
	if err != nil || sum.ConfigMapsCreated != 0 || sum.ConfigMapsUpdated != 1 {
		t.Errorf("Sync once the cache caught up = %+v, %v, want the ConfigMap of ns/gw updated", sum, err)
	}
}

// TestSyncForeignConfigMap: a ConfigMap of the Gateway's name that rlpkit-controller does not
// manage is left alone, and the error says so.
func TestSyncForeignConfigMap(t *testing.T) {
	foreign := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "rlpkit-gw"}, Data: map[string]string{"mine": "yes"}}
	c, _ := fakeCluster(t, foreign)
	var s controller.Syncer
	_, err := s.Sync(context.Background(), c, controller.Options{})
	if err == nil || !strings.Contains(err.Error(), "Gateway ns/gw: create ConfigMap ns/rlpkit-gw") || !strings.Contains(err.Error(), "it leaves it alone") {
		t.Fatalf("Sync = %v, want an error naming the ConfigMap and saying it is left alone", err)
	}
	var cm corev1.ConfigMap
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(foreign), &cm); err != nil || cm.Data["mine"] != "yes" {
		t.Errorf("the foreign ConfigMap was changed: %v %v", cm.Data, err)
	}
}

// TestREADMEReconcileAgrees: the README's reconcile and Syncer.Sync write the same thing.
func TestREADMEReconcileAgrees(t *testing.T) {
	ctx := context.Background()
	a, _ := fakeCluster(t)
	b, writes := fakeCluster(t)
	var s controller.Syncer
	if _, err := s.Sync(ctx, a, controller.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := readmeReconcile(ctx, b); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"rlpkit-gw", "rlpkit-idle"} {
		var ca, cb corev1.ConfigMap
		if err := a.Get(ctx, types.NamespacedName{Namespace: "ns", Name: name}, &ca); err != nil {
			t.Fatal(err)
		}
		if err := b.Get(ctx, types.NamespacedName{Namespace: "ns", Name: name}, &cb); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(ca.Data, cb.Data); diff != "" {
			t.Errorf("ConfigMap %s: Sync vs the README (-Sync +README):\n%s", name, diff)
		}
	}
	before := *writes
	if err := readmeReconcile(ctx, b); err != nil {
		t.Fatal(err)
	}
	if n := *writes - before; n != 0 {
		t.Errorf("the README's reconcile wrote %d times on unchanged objects, want 0", n)
	}
}

// TestSyncWriteRefused: when the API server refuses the Gateway's ConfigMap, the policy it
// would enforce is not reported Enforced, and the condition names the ConfigMap and the
// API server's answer.
func TestSyncWriteRefused(t *testing.T) {
	s, err := controller.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	base, _ := fakeCluster(t)
	var objs []client.Object
	for _, l := range []client.ObjectList{&gatewayv1.GatewayList{}, &gatewayv1.HTTPRouteList{}, &policy.RateLimitPolicyList{}} {
		if err := base.List(context.Background(), l); err != nil {
			t.Fatal(err)
		}
		items, _ := meta.ExtractList(l)
		for _, it := range items {
			o := it.(client.Object)
			o.SetResourceVersion("")
			objs = append(objs, o)
		}
	}
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).WithStatusSubresource(&policy.RateLimitPolicy{}).
		WithInterceptorFuncs(interceptor.Funcs{Create: func(ctx context.Context, c client.WithWatch, o client.Object, opts ...client.CreateOption) error {
			if o.GetName() == "rlpkit-gw" {
				return apierrors.NewForbidden(corev1.Resource("configmaps"), "rlpkit-gw", errors.New("exceeded quota: compute-resources"))
			}
			return c.Create(ctx, o, opts...)
		}}).Build()
	var sy controller.Syncer
	if _, err := sy.Sync(context.Background(), c, controller.Options{APIs: []controller.API{controller.APIV1alpha1}}); err == nil {
		t.Fatal("Sync with the ConfigMap refused: no error")
	}
	var p policy.RateLimitPolicy
	if err := c.Get(context.Background(), types.NamespacedName{Namespace: "ns", Name: "shop"}, &p); err != nil {
		t.Fatal(err)
	}
	cond := meta.FindStatusCondition(p.Status.Conditions, string(policy.ConditionEnforced))
	if cond == nil || cond.Status != metav1.ConditionFalse || !strings.Contains(cond.Message, "ConfigMap ns/rlpkit-gw") || !strings.Contains(cond.Message, "exceeded quota") {
		t.Errorf("Enforced = %+v, want False naming ConfigMap ns/rlpkit-gw and the API server's answer", cond)
	}
}

// TestSyncLongGatewayName: a Gateway whose name is as long as Kubernetes allows gets a
// ConfigMap of a valid name and label, the same at every Sync.
func TestSyncLongGatewayName(t *testing.T) {
	name := strings.Repeat("g", 250) + "-gw"
	docs := strings.ReplaceAll(objects, "name: gw, uid: gw-uid", "name: "+name+", uid: gw-uid")
	docs = strings.ReplaceAll(docs, "parentRefs: [{name: gw}]", "parentRefs: [{name: "+name+"}]")
	c, writes := fakeClusterOf(t, docs)
	var s controller.Syncer
	if _, err := s.Sync(context.Background(), c, controller.Options{}); err != nil {
		t.Fatal(err)
	}
	var cms corev1.ConfigMapList
	if err := c.List(context.Background(), &cms, client.MatchingLabels{controller.LabelManagedBy: controller.ManagerName}); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, cm := range cms.Items {
		if errs := validation.IsDNS1123Subdomain(cm.Name); len(errs) > 0 {
			t.Errorf("ConfigMap name %q: %v", cm.Name, errs)
		}
		for k, v := range cm.Labels {
			if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
				t.Errorf("ConfigMap %s: label %s=%q: %v", cm.Name, k, v, errs)
			}
		}
		if cm.Name == controller.ConfigMapName(name) {
			found = strings.Contains(cm.Data[controller.KeyLimits], "shop")
		}
	}
	if !found {
		t.Errorf("no ConfigMap %s with the route's limits", controller.ConfigMapName(name))
	}
	before := *writes
	if _, err := s.Sync(context.Background(), c, controller.Options{}); err != nil || *writes != before {
		t.Errorf("a second Sync: %v, %d writes, want none", err, *writes-before)
	}
}
