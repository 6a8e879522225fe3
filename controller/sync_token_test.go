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
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/rlpkit/rlpkit/controller"
	"github.com/rlpkit/rlpkit/kuadrant"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policy/kuadrantv1"
	"github.com/rlpkit/rlpkit/policy/kuadrantv1alpha1"
)

// objectsToken adds to objectsV1 kuadrant.io/v1alpha1 TokenRateLimitPolicies: one on the
// route shop (beside both RateLimitPolicies of the same name), one whose target is
// missing, and one on a GRPCRoute, which the CRD rejects.
const objectsToken = objectsV1 + `
---
apiVersion: kuadrant.io/v1alpha1
kind: TokenRateLimitPolicy
metadata: {namespace: ns, name: shop, generation: 5, uid: shop-trlp-uid}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: shop}
  limits:
    per-user:
      rates: [{limit: 1000, window: 1m}]
      counters: [{expression: "request.headers['x-user']"}]
---
apiVersion: kuadrant.io/v1alpha1
kind: TokenRateLimitPolicy
metadata: {namespace: ns, name: lost-trlp, generation: 1, uid: lost-trlp-uid}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: gone}
  limits:
    all: {rates: [{limit: 10, window: 1m}]}
---
apiVersion: kuadrant.io/v1alpha1
kind: TokenRateLimitPolicy
metadata: {namespace: ns, name: grpc-trlp, generation: 2, uid: grpc-trlp-uid}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: GRPCRoute, name: shop}
  limits:
    all: {rates: [{limit: 10, window: 1m}]}
`

// getToken returns the status of the TokenRateLimitPolicy ns/name.
func getToken(t *testing.T, c client.Client, name string) kuadrantv1alpha1.TokenRateLimitPolicyStatus {
	t.Helper()
	var p kuadrantv1alpha1.TokenRateLimitPolicy
	if err := c.Get(context.Background(), types.NamespacedName{Namespace: "ns", Name: name}, &p); err != nil {
		t.Fatal(err)
	}
	return p.Status
}

// TestSyncTokenPolicies: TokenRateLimitPolicies, read beside the RateLimitPolicies of both
// APIs, get kuadrant-operator's conditions and observedGeneration, and the Gateway's
// ConfigMap holds their check and report actions and Limitador limits, as compiling the
// same objects from a file gives.
func TestSyncTokenPolicies(t *testing.T) {
	ctx := context.Background()
	c, writes := fakeClusterOf(t, objectsToken)
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var s controller.Syncer
	sum, err := s.Sync(ctx, c, controller.Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := [4]int{sum.Policies, sum.PoliciesV1, sum.TokenPolicies, sum.StatusPatches}, [4]int{2, 3, 3, 8}; got != want {
		t.Errorf("Sync: v1alpha1, v1 and token policies read, status patches = %v, want %v", got, want)
	}

	at := metav1.NewTime(now)
	tests := []struct {
		name string
		want kuadrantv1alpha1.TokenRateLimitPolicyStatus
	}{
		{"shop", kuadrantv1alpha1.TokenRateLimitPolicyStatus{ObservedGeneration: 5, Conditions: []metav1.Condition{
			{Type: "Accepted", Status: "True", ObservedGeneration: 5, LastTransitionTime: at, Reason: "Accepted", Message: "TokenRateLimitPolicy has been accepted"},
			{Type: "Enforced", Status: "True", ObservedGeneration: 5, LastTransitionTime: at, Reason: "Enforced", Message: "TokenRateLimitPolicy has been successfully enforced"},
		}}},
		{"lost-trlp", kuadrantv1alpha1.TokenRateLimitPolicyStatus{ObservedGeneration: 1, Conditions: []metav1.Condition{
			{Type: "Accepted", Status: "False", ObservedGeneration: 1, LastTransitionTime: at, Reason: "TargetNotFound", Message: "TokenRateLimitPolicy target gone was not found"},
		}}},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, getToken(t, c, tc.name)); diff != "" {
			t.Errorf("status of TokenRateLimitPolicy ns/%s (-want +got):\n%s", tc.name, diff)
		}
	}
	grpc := getToken(t, c, "grpc-trlp")
	if cond := meta.FindStatusCondition(grpc.Conditions, "Accepted"); cond == nil || cond.Status != "False" || cond.Reason != "Invalid" ||
		!strings.Contains(cond.Message, "spec.targetRef.kind") || grpc.ObservedGeneration != 2 || meta.FindStatusCondition(grpc.Conditions, "Enforced") != nil {
		t.Errorf("status of TokenRateLimitPolicy ns/grpc-trlp = %+v, want Accepted False (Invalid) naming spec.targetRef.kind, no Enforced, observedGeneration 2", grpc)
	}
	// The RateLimitPolicies of the same name keep their own statuses.
	var v1 kuadrantv1.RateLimitPolicy
	if err := c.Get(ctx, types.NamespacedName{Namespace: "ns", Name: "shop"}, &v1); err != nil {
		t.Fatal(err)
	}
	if cond := meta.FindStatusCondition(v1.Status.Conditions, "Enforced"); cond == nil || cond.Message != "RateLimitPolicy has been successfully enforced" {
		t.Errorf("the kuadrant.io/v1 policy ns/shop: Enforced = %+v, want its own", cond)
	}

	want := compileFile(t, objectsToken)
	var cm corev1.ConfigMap
	if err := c.Get(ctx, types.NamespacedName{Namespace: "ns", Name: "rlpkit-gw"}, &cm); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want["ns/gw"], cm.Data); diff != "" {
		t.Errorf("ConfigMap ns/rlpkit-gw (-compiled from a file +written):\n%s", diff)
	}
	id := kuadrant.TokenLimitID(&kuadrantv1alpha1.TokenRateLimitPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "shop"}}, "per-user")
	for _, k := range []string{controller.KeyKuadrantWasm, controller.KeyKuadrantLimits, controller.KeyLimits} {
		if !strings.Contains(cm.Data[k], id) {
			t.Errorf("ConfigMap ns/rlpkit-gw: %s lacks the token limit %s:\n%s", k, id, cm.Data[k])
		}
	}
	for _, svc := range []string{kuadrant.RateLimitCheckServiceName, kuadrant.RateLimitReportServiceName, kuadrant.TokenReportHits} {
		if !strings.Contains(cm.Data[controller.KeyKuadrantWasm], svc) {
			t.Errorf("ConfigMap ns/rlpkit-gw: %s lacks %s:\n%s", controller.KeyKuadrantWasm, svc, cm.Data[controller.KeyKuadrantWasm])
		}
	}

	before := *writes
	if sum, err := s.Sync(ctx, c, controller.Options{Now: func() time.Time { return now.Add(time.Hour) }}); err != nil || *writes != before {
		t.Errorf("second Sync of unchanged objects: %d writes (%+v, %v), want none", *writes-before, sum, err)
	}

	// A deleted TokenRateLimitPolicy's limits go.
	if err := c.Delete(ctx, &kuadrantv1alpha1.TokenRateLimitPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "shop"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Sync(ctx, c, controller.Options{Now: func() time.Time { return now }}); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, types.NamespacedName{Namespace: "ns", Name: "rlpkit-gw"}, &cm); err != nil {
		t.Fatal(err)
	}
	for k, v := range cm.Data {
		if strings.Contains(v, id) {
			t.Errorf("after the TokenRateLimitPolicy's deletion, %s still holds its limit %s:\n%s", k, id, v)
		}
	}
}

// TestSyncTokenAPI: with kuadrant.io/v1alpha1 read alone, the TokenRateLimitPolicies get
// their statuses and limits and the RateLimitPolicies are left alone; with it left out,
// the TokenRateLimitPolicies are.
func TestSyncTokenAPI(t *testing.T) {
	tests := []struct {
		apis          []controller.API
		patched       int
		tokenStatus   bool
		tokenLimits   bool
		v1Status      bool
		v1alpha1Keys  bool
		kuadrantFiles bool
	}{
		{[]controller.API{controller.APITokenV1alpha1}, 3, true, true, false, false, true},
		{[]controller.API{controller.APIV1alpha1, controller.APIV1}, 5, false, false, true, true, true},
		{[]controller.API{controller.APIV1alpha1}, 2, false, false, false, true, false},
	}
	for _, tc := range tests {
		t.Run(strings.Join(func() []string {
			var s []string
			for _, a := range tc.apis {
				s = append(s, string(a))
			}
			return s
		}(), ","), func(t *testing.T) {
			ctx := context.Background()
			c, _ := fakeClusterOf(t, objectsToken)
			var s controller.Syncer
			sum, err := s.Sync(ctx, c, controller.Options{APIs: tc.apis})
			if err != nil {
				t.Fatal(err)
			}
			if sum.StatusPatches != tc.patched {
				t.Errorf("Sync(APIs: %v) patched %d statuses, want %d", tc.apis, sum.StatusPatches, tc.patched)
			}
			if got := len(getToken(t, c, "shop").Conditions) > 0; got != tc.tokenStatus {
				t.Errorf("Sync(APIs: %v): the TokenRateLimitPolicy's status written = %v, want %v", tc.apis, got, tc.tokenStatus)
			}
			var v1 kuadrantv1.RateLimitPolicy
			if err := c.Get(ctx, types.NamespacedName{Namespace: "ns", Name: "shop"}, &v1); err != nil {
				t.Fatal(err)
			}
			if got := len(v1.Status.Conditions) > 0; got != tc.v1Status {
				t.Errorf("Sync(APIs: %v): the kuadrant.io/v1 policy's status written = %v, want %v", tc.apis, got, tc.v1Status)
			}
			var cm corev1.ConfigMap
			if err := c.Get(ctx, types.NamespacedName{Namespace: "ns", Name: "rlpkit-gw"}, &cm); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(cm.Data[controller.KeyLimits], "tokenlimit."); got != tc.tokenLimits {
				t.Errorf("Sync(APIs: %v): token limits in %s = %v, want %v", tc.apis, controller.KeyLimits, got, tc.tokenLimits)
			}
			if _, got := cm.Data[controller.KeyPluginConfig]; got != tc.v1alpha1Keys {
				t.Errorf("Sync(APIs: %v): %s written = %v, want %v", tc.apis, controller.KeyPluginConfig, got, tc.v1alpha1Keys)
			}
			if _, got := cm.Data[controller.KeyKuadrantWasm]; got != tc.kuadrantFiles {
				t.Errorf("Sync(APIs: %v): %s written = %v, want %v", tc.apis, controller.KeyKuadrantWasm, got, tc.kuadrantFiles)
			}
		})
	}
}

// TestSyncTokenWriteRefused: when the API server refuses the Gateway's ConfigMap, the
// TokenRateLimitPolicy it would enforce is Enforced=False, reason Unknown as
// kuadrant-operator words what is not ready, naming the ConfigMap and the answer.
func TestSyncTokenWriteRefused(t *testing.T) {
	base, _ := fakeClusterOf(t, objectsToken)
	var objs []client.Object
	for _, l := range []client.ObjectList{&gatewayv1.GatewayList{}, &gatewayv1.HTTPRouteList{}, &kuadrantv1alpha1.TokenRateLimitPolicyList{}} {
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
	s, err := controller.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).WithStatusSubresource(&kuadrantv1alpha1.TokenRateLimitPolicy{}).
		WithInterceptorFuncs(interceptor.Funcs{Create: func(ctx context.Context, c client.WithWatch, o client.Object, opts ...client.CreateOption) error {
			if o.GetName() == "rlpkit-gw" {
				return apierrors.NewForbidden(corev1.Resource("configmaps"), "rlpkit-gw", errors.New("exceeded quota: compute-resources"))
			}
			return c.Create(ctx, o, opts...)
		}}).Build()
	var sy controller.Syncer
	if _, err := sy.Sync(context.Background(), c, controller.Options{APIs: []controller.API{controller.APITokenV1alpha1}}); err == nil {
		t.Fatal("Sync with the ConfigMap refused: no error")
	}
	cond := meta.FindStatusCondition(getToken(t, c, "shop").Conditions, string(policy.ConditionEnforced))
	if cond == nil || cond.Status != metav1.ConditionFalse || cond.Reason != kuadrant.ReasonUnknown ||
		!strings.HasPrefix(cond.Message, "TokenRateLimitPolicy is not enforced") || !strings.Contains(cond.Message, "ConfigMap ns/rlpkit-gw") || !strings.Contains(cond.Message, "exceeded quota") {
		t.Errorf("Enforced = %+v, want False (Unknown) naming ConfigMap ns/rlpkit-gw and the API server's answer", cond)
	}
}
