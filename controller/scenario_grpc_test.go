package controller

import (
	"context"
	"fmt"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/rlpkit/rlpkit/kuadrant"
)

// grpcRoute returns a GRPCRoute attached to Gateway gw (of its namespace) for hostname,
// with one rule matching service/method.
func grpcRoute(ns, name, hostname, gw, service, method string) *gatewayv1.GRPCRoute {
	return &gatewayv1.GRPCRoute{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: gatewayv1.GRPCRouteSpec{
			CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{Name: gatewayv1.ObjectName(gw)}}},
			Hostnames:       []gatewayv1.Hostname{gatewayv1.Hostname(hostname)},
			Rules: []gatewayv1.GRPCRouteRule{{
				Matches: []gatewayv1.GRPCRouteMatch{{Method: &gatewayv1.GRPCMethodMatch{Service: ptr.To(service), Method: ptr.To(method)}}},
			}},
		},
	}
}

// TestLifecycleGRPCRoute: the controller watches GRPCRoutes, so a kuadrant.io/v1 policy on
// one is enforced, and a change of the route alone (its method match) is recompiled into
// the Gateway's wasm-shim configuration.
func TestLifecycleGRPCRoute(t *testing.T) {
	cfg := apiServer(t)
	c := direct(t, cfg)
	ctx := context.Background()
	ns := namespace(t, c, "lifecycle-grpc")
	startController(t, cfg, ns)

	create(t, c, gateway(ns, "gw", "*.example.com"),
		grpcRoute(ns, "echo", "echo.example.com", "gw", "echo.v1.Echo", "Say"),
		rlpV1(t, ns, "echo-policy", "GRPCRoute", "echo", limitsV1("calls", 4, "10s")))

	predicate := func(want string) func() error {
		return func() error {
			if err := wantConditionV1(ctx, c, ns, "echo-policy", kuadrant.ConditionEnforced, metav1.ConditionTrue, kuadrant.ReasonEnforced); err != nil {
				return err
			}
			got, err := readConfigMap(ctx, c, ns, "gw")
			if err != nil {
				return err
			}
			if n := len(got.wasm.ActionSets); n != 1 || !slices.Contains(got.wasm.ActionSets[0].RouteRuleConditions.Predicates, want) {
				return fmt.Errorf("kuadrant-wasm.yaml has %d action sets %+v, want 1 with %s", n, got.wasm.ActionSets, want)
			}
			return nil
		}
	}
	eventually(t, settle, predicate("request.url_path == '/echo.v1.Echo/Say'"))

	var r gatewayv1.GRPCRoute
	if err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: "echo"}, &r); err != nil {
		t.Fatal(err)
	}
	r.Spec.Rules[0].Matches[0].Method.Method = ptr.To("Speak")
	if err := c.Update(ctx, &r); err != nil {
		t.Fatal(err)
	}
	eventually(t, settle, predicate("request.url_path == '/echo.v1.Echo/Speak'"))
}
