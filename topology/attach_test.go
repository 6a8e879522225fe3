package topology

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

func ptr[T any](v T) *T { return &v }

func TestListeners(t *testing.T) {
	all := gatewayv1.NamespacesFromAll
	gw := &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "infra", Name: "gw"}, Spec: gatewayv1.GatewaySpec{Listeners: []gatewayv1.Listener{
		{Name: "web", Protocol: gatewayv1.HTTPProtocolType, Port: 80, AllowedRoutes: &gatewayv1.AllowedRoutes{Namespaces: &gatewayv1.RouteNamespaces{From: &all}}},
		{Name: "same", Protocol: gatewayv1.HTTPProtocolType, Port: 80, Hostname: ptr(gatewayv1.Hostname("*.example.com"))},
		{Name: "tcp", Protocol: gatewayv1.TCPProtocolType, Port: 9000, AllowedRoutes: &gatewayv1.AllowedRoutes{Namespaces: &gatewayv1.RouteNamespaces{From: &all}}},
		{Name: "alt", Protocol: gatewayv1.HTTPSProtocolType, Port: 443, Hostname: ptr(gatewayv1.Hostname("*.example.com")), AllowedRoutes: &gatewayv1.AllowedRoutes{Namespaces: &gatewayv1.RouteNamespaces{From: &all}}},
	}}}
	ns := gatewayv1.Namespace("infra")
	route := &gatewayv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "r"}, Spec: gatewayv1.HTTPRouteSpec{
		CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{
			{Name: "other"},
			{Name: "gw", Namespace: &ns, Port: ptr(gatewayv1.PortNumber(443))},
			{Name: "gw", Namespace: &ns},
		}},
		Hostnames: []gatewayv1.Hostname{"*.com"},
	}}
	topo := New([]*gatewayv1.Gateway{gw}, nil)
	got := topo.Listeners(route)
	want := []ListenerAttachment{
		{Gateway: gw, Listener: 3, ParentRef: 1, Hostnames: []string{"*.example.com"}},
		{Gateway: gw, Listener: 0, ParentRef: 2, Hostnames: []string{"*.com"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Listeners (-want +got):\n%s", diff)
	}
	att := topo.Attach(route)
	if len(att) != 1 || cmp.Diff([]gatewayv1.SectionName{"alt", "web"}, att[0].Listeners) != "" || cmp.Diff([]string{"*.com", "*.example.com"}, att[0].Hostnames) != "" {
		t.Errorf("Attach = %+v, want one attachment through alt and web serving *.com and *.example.com", att)
	}
	if r := topo.AdmitKind(gw, gw.Spec.Listeners[1], route); r == nil || r.Hint != HintNamespace {
		t.Errorf("AdmitKind(same) = %+v, want a namespace refusal", r)
	}
}
