package controller_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/rlpkit/rlpkit/controller"
	"github.com/rlpkit/rlpkit/policy/kuadrantv1"
)

// grpcObjects are a Gateway and a kuadrant.io/v1 policy on the GRPCRoute echo's rule say.
const grpcObjects = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {namespace: ns, name: gw, uid: gw-uid}
spec:
  gatewayClassName: istio
  listeners:
  - {name: http, port: 80, protocol: HTTP}
---
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata: {namespace: ns, name: say, generation: 1, uid: say-uid}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: GRPCRoute, name: echo, sectionName: say}
  limits:
    calls: {rates: [{limit: 4, window: 10s}]}
`

// TestSyncGRPCRoute: Sync reads GRPCRoutes, so a policy on one is compiled into its
// Gateway's wasm-shim configuration; a change of the route (its method match) is
// recompiled by the next Sync, and the route's deletion leaves the policy TargetNotFound.
func TestSyncGRPCRoute(t *testing.T) {
	ctx := context.Background()
	route := &gatewayv1.GRPCRoute{
		TypeMeta:   metav1.TypeMeta{APIVersion: gatewayv1.GroupVersion.String(), Kind: "GRPCRoute"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "echo"},
		Spec: gatewayv1.GRPCRouteSpec{
			CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{Name: "gw"}}},
			Hostnames:       []gatewayv1.Hostname{"echo.local"},
			Rules: []gatewayv1.GRPCRouteRule{{
				Name:    ptr.To(gatewayv1.SectionName("say")),
				Matches: []gatewayv1.GRPCRouteMatch{{Method: &gatewayv1.GRPCMethodMatch{Service: ptr.To("echo.v1.Echo"), Method: ptr.To("Say")}}},
			}},
		},
	}
	c, _ := fakeClusterOf(t, grpcObjects, route)
	var s controller.Syncer
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	sync := func() {
		t.Helper()
		if _, err := s.Sync(ctx, c, controller.Options{APIs: []controller.API{controller.APIV1}, Now: func() time.Time { return now }}); err != nil {
			t.Fatal(err)
		}
	}
	wasm := func() string {
		t.Helper()
		var cm corev1.ConfigMap
		if err := c.Get(ctx, types.NamespacedName{Namespace: "ns", Name: "rlpkit-gw"}, &cm); err != nil {
			t.Fatal(err)
		}
		return cm.Data[controller.KeyKuadrantWasm]
	}
	condition := func(typ string) *metav1.Condition {
		t.Helper()
		var p kuadrantv1.RateLimitPolicy
		if err := c.Get(ctx, types.NamespacedName{Namespace: "ns", Name: "say"}, &p); err != nil {
			t.Fatal(err)
		}
		return meta.FindStatusCondition(p.Status.Conditions, typ)
	}

	sync()
	if got := wasm(); !strings.Contains(got, "request.url_path == '/echo.v1.Echo/Say'") || !strings.Contains(got, "scope: ns/echo") {
		t.Errorf("%s after the first Sync:\n%s\nwant an action set for /echo.v1.Echo/Say scoped ns/echo", controller.KeyKuadrantWasm, got)
	}
	if cond := condition("Enforced"); cond == nil || cond.Status != metav1.ConditionTrue {
		t.Errorf("Enforced = %+v, want True", cond)
	}

	route.Spec.Rules[0].Matches[0].Method.Method = ptr.To("Speak")
	if err := c.Update(ctx, route); err != nil {
		t.Fatal(err)
	}
	sync()
	if got := wasm(); !strings.Contains(got, "request.url_path == '/echo.v1.Echo/Speak'") || strings.Contains(got, "/echo.v1.Echo/Say'") {
		t.Errorf("%s after the route's method changed to Speak:\n%s", controller.KeyKuadrantWasm, got)
	}

	if err := c.Delete(ctx, route); err != nil {
		t.Fatal(err)
	}
	sync()
	if cond := condition("Accepted"); cond == nil || cond.Reason != "TargetNotFound" || cond.Message != "RateLimitPolicy target echo#say was not found" {
		t.Errorf("Accepted after the route's deletion = %+v, want TargetNotFound", cond)
	}
	if got := wasm(); !strings.Contains(got, "actionSets: []") {
		t.Errorf("%s after the route's deletion:\n%s\nwant no action sets", controller.KeyKuadrantWasm, got)
	}
}

// TestGRPCRoutesServed: GRPCRoutes are watched only where the API server serves them; a
// mapper that cannot answer is an error.
func TestGRPCRoutesServed(t *testing.T) {
	grpc := gatewayv1.SchemeGroupVersion.WithKind("GRPCRoute")
	with := meta.NewDefaultRESTMapper(nil)
	with.Add(grpc, meta.RESTScopeNamespace)
	for _, tc := range []struct {
		name   string
		mapper meta.RESTMapper
		want   bool
		err    string
	}{
		{"served", with, true, ""},
		{"no CRD", meta.NewDefaultRESTMapper(nil), false, ""},
		{"discovery fails", failingMapper{with}, false, "controller: are GRPCRoutes served? connection refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := controller.GRPCRoutesServed(tc.mapper)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("GRPCRoutesServed() error = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("GRPCRoutesServed() = %v, %v, want %v", got, err, tc.want)
			}
		})
	}
}
