package envoygateway

import (
	"testing"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/rlpkit/rlpkit/descriptor"
)

// TestGRPCMatch: a GRPCRouteMatch becomes the path and header match Envoy Gateway writes,
// and admits the gRPC calls whose path (/<service>/<method>) and headers it names.
func TestGRPCMatch(t *testing.T) {
	exact, regex := gatewayv1.GRPCMethodMatchExact, gatewayv1.GRPCMethodMatchRegularExpression
	headerRegex := gatewayv1.GRPCHeaderMatchRegularExpression
	s := func(v string) *string { return &v }
	for _, tc := range []struct {
		name  string
		match gatewayv1.GRPCRouteMatch
		want  string // the path match, then the header matches
		admit []string
		deny  []string
	}{
		{name: "none", want: `prefix "/"`, admit: []string{"/a.B/C", "/x/y"}},
		{name: "service and method", match: gatewayv1.GRPCRouteMatch{Method: &gatewayv1.GRPCMethodMatch{Type: &exact, Service: s("echo.v1.Echo"), Method: s("Say")}},
			want: `"/echo.v1.Echo/Say"`, admit: []string{"/echo.v1.Echo/Say"}, deny: []string{"/echo.v1.Echo/Shout", "/echo.v1.Echo/Say/x"}},
		{name: "service", match: gatewayv1.GRPCRouteMatch{Method: &gatewayv1.GRPCMethodMatch{Service: s("echo.v1.Echo")}},
			want: `prefix "/echo.v1.Echo"`, admit: []string{"/echo.v1.Echo/Say", "/echo.v1.Echo/Shout"}, deny: []string{"/echo.v1.EchoX/Say", "/echo.v2.Echo/Say"}},
		{name: "method", match: gatewayv1.GRPCRouteMatch{Method: &gatewayv1.GRPCMethodMatch{Method: s("Ping")}},
			want: `prefix "/" :path suffix "/Ping"`, admit: []string{"/a.B/Ping", "/health.v1.Health/Ping"}, deny: []string{"/a.B/Pings", "/a.B/XPing"}},
		{name: "regex service and method", match: gatewayv1.GRPCRouteMatch{Method: &gatewayv1.GRPCMethodMatch{Type: &regex, Service: s(`echo\.v[0-9]+\.Echo`), Method: s("S.*")}},
			want: `//echo\.v[0-9]+\.Echo/S.*/`, admit: []string{"/echo.v1.Echo/Say", "/echo.v22.Echo/Shout"}, deny: []string{"/echo.v1.Echo/Get", "/x/echo.v1.Echo/Say"}},
		{name: "regex method", match: gatewayv1.GRPCRouteMatch{Method: &gatewayv1.GRPCMethodMatch{Type: &regex, Method: s("List.*")}},
			want: `//` + grpcServiceRE + `/List.*/`, admit: []string{"/shop.Store/ListItems", "/Store/List"}, deny: []string{"/shop.Store/GetItem", "/9shop.Store/ListItems"}},
		{name: "regex service", match: gatewayv1.GRPCRouteMatch{Method: &gatewayv1.GRPCMethodMatch{Type: &regex, Service: s(`shop\..*`)}},
			want: `//shop\..*/` + grpcMethodRE + `/`, admit: []string{"/shop.Store/ListItems"}, deny: []string{"/shop.Store/List-Items", "/store.Shop/List"}},
		{name: "headers", match: gatewayv1.GRPCRouteMatch{
			Headers: []gatewayv1.GRPCHeaderMatch{{Name: "x-tenant", Value: "acme"}, {Type: &headerRegex, Name: "x-role", Value: "ops|dev"}},
			Method:  &gatewayv1.GRPCMethodMatch{Method: s("Ping")}},
			want:  `prefix "/" x-tenant "acme" x-role /ops|dev/ :path suffix "/Ping"`,
			admit: []string{"/a.B/Ping x-tenant=acme x-role=dev"}, deny: []string{"/a.B/Ping x-tenant=acme", "/a.B/Ping x-tenant=acme x-role=guest"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt := &Route{}
			rt.setGRPCMatch(tc.match)
			got := describeMatch(&rt.Path)
			for i := range rt.Headers {
				got += " " + rt.Headers[i].Name + " " + describeMatch(&rt.Headers[i])
			}
			if got != tc.want {
				t.Errorf("setGRPCMatch(%s) = %s, want %s", tc.name, got, tc.want)
			}
			for want, calls := range map[bool][]string{true: tc.admit, false: tc.deny} {
				for _, c := range calls {
					if ok := rt.admits(grpcRequest(c)); ok != want {
						t.Errorf("admits(%q) = %v, want %v", c, ok, want)
					}
				}
			}
		})
	}
}

// grpcRequest reads "<path> name=value..." as a gRPC call.
func grpcRequest(s string) *request {
	h := descriptor.HeaderMap{"content-type": {"application/grpc"}}
	path, rest, _ := cutSpace(s)
	for rest != "" {
		var kv string
		kv, rest, _ = cutSpace(rest)
		for i := range kv {
			if kv[i] == '=' {
				h[kv[:i]] = append(h[kv[:i]], kv[i+1:])
				break
			}
		}
	}
	return newRequest(&descriptor.Request{Method: "POST", Host: "echo.test", Path: path, Headers: h})
}

func cutSpace(s string) (string, string, bool) {
	for i := range s {
		if s[i] == ' ' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}
