package topology

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// A GRPCRoute attaches to HTTP and HTTPS listeners that leave allowedRoutes.kinds empty or
// name GRPCRoute, not to one admitting HTTPRoutes only; hostnames intersect as for an
// HTTPRoute.
func TestAttachGRPC(t *testing.T) {
	all := &gatewayv1.RouteNamespaces{From: ptr(gatewayv1.NamespacesFromAll)}
	gw := &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "infra", Name: "gw"}, Spec: gatewayv1.GatewaySpec{Listeners: []gatewayv1.Listener{
		{Name: "http-only", Protocol: gatewayv1.HTTPProtocolType, Port: 80, AllowedRoutes: &gatewayv1.AllowedRoutes{Namespaces: all, Kinds: []gatewayv1.RouteGroupKind{{Kind: "HTTPRoute"}}}},
		{Name: "grpc", Protocol: gatewayv1.HTTPProtocolType, Port: 8080, Hostname: ptr(gatewayv1.Hostname("*.example.com")), AllowedRoutes: &gatewayv1.AllowedRoutes{Namespaces: all, Kinds: []gatewayv1.RouteGroupKind{{Kind: "GRPCRoute"}}}},
		{Name: "any", Protocol: gatewayv1.HTTPSProtocolType, Port: 443, AllowedRoutes: &gatewayv1.AllowedRoutes{Namespaces: all}},
		{Name: "tcp", Protocol: gatewayv1.TCPProtocolType, Port: 9000, AllowedRoutes: &gatewayv1.AllowedRoutes{Namespaces: all}},
	}}}
	ns := gatewayv1.Namespace("infra")
	route := &gatewayv1.GRPCRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "g"}, Spec: gatewayv1.GRPCRouteSpec{
		CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{{Name: "gw", Namespace: &ns}}},
		Hostnames:       []gatewayv1.Hostname{"grpc.example.com"},
	}}
	topo := New([]*gatewayv1.Gateway{gw}, nil)
	want := []ListenerAttachment{
		{Gateway: gw, Listener: 1, ParentRef: 0, Hostnames: []string{"grpc.example.com"}},
		{Gateway: gw, Listener: 2, ParentRef: 0, Hostnames: []string{"grpc.example.com"}},
	}
	if diff := cmp.Diff(want, topo.GRPCListeners(route)); diff != "" {
		t.Errorf("GRPCListeners (-want +got):\n%s", diff)
	}
	att := topo.AttachGRPC(route)
	if len(att) != 1 || att[0].Route != route || cmp.Diff([]gatewayv1.SectionName{"grpc", "any"}, att[0].Listeners) != "" || cmp.Diff([]string{"grpc.example.com"}, att[0].Hostnames) != "" {
		t.Errorf("AttachGRPC = %+v, want one attachment through grpc and any serving grpc.example.com", att)
	}
	_, r := topo.AdmitGRPC(gw, gw.Spec.Listeners[0], route)
	if r == nil || r.Hint != "add GRPCRoute to the listener's allowedRoutes.kinds" || r.Msg != "listener http-only admits kinds HTTPRoute, not GRPCRoute (allowedRoutes.kinds)" {
		t.Errorf("AdmitGRPC(http-only) = %+v, want a kinds refusal naming GRPCRoute", r)
	}
	// The HTTPRoute of the same shape is refused by the grpc listener instead.
	hr := &gatewayv1.HTTPRoute{ObjectMeta: route.ObjectMeta, Spec: gatewayv1.HTTPRouteSpec{CommonRouteSpec: route.Spec.CommonRouteSpec, Hostnames: route.Spec.Hostnames}}
	if got := topo.Attach(hr); len(got) != 1 || cmp.Diff([]gatewayv1.SectionName{"http-only", "any"}, got[0].Listeners) != "" {
		t.Errorf("Attach(HTTPRoute) = %+v, want listeners http-only and any", got)
	}
}
