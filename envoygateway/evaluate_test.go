package envoygateway

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/descriptor"
)

func compileCase(t *testing.T, name string) *Result {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "compile", name, "input.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return compileFile(t, data)
}

func TestEvaluateRoutes(t *testing.T) {
	tests := []struct {
		gateway, host, path, method string
		port                        int32
		route                       string // "" when none
		domains                     string // the calls' domains, comma-separated
		direct                      uint32
	}{
		{"city/gate", "north.city.test", "/", "GET", 80, "httproute/city/street/rule/0/match/0/north_city_test", "city/gate/north", 0},
		// Listeners any and wild both serve south.city.test on port 80, which Envoy would
		// refuse; the first listener's is taken.
		{"city/gate", "south.city.test:80", "/", "GET", 0, "httproute/city/street/rule/0/match/0/south_city_test", "city/gate/any", 0},
		{"city/gate", "SOUTH.city.test.", "/", "GET", 80, "httproute/city/street/rule/0/match/0/south_city_test", "city/gate/any", 0},
		{"city/gate", "west.city.test", "/", "GET", 80, "httproute/city/lane/rule/0/match/0/*_city_test", "city/gate/wild", 0},
		{"city/gate", "x.y.test", "/", "GET", 80, "httproute/city/street/rule/0/match/0/*_test", "city/gate/any", 0},
		{"city/gate", "anything.example", "/", "GET", 80, "", "", 0},
		{"city/gate", "court.example", "/x", "GET", 81, "", "", 0},
		{"city/gate", "court.test", "/x", "GET", 81, "httproute/city/lane/rule/0/match/0/*_test", "city/gate/other", 0},
		{"city/gate", "alley.town.test", "/", "GET", 81, "httproute/town/alley/rule/0/match/0/alley_town_test", "city/gate/other", 0},
		{"city/gate", "alley.town.test", "/", "GET", 9999, "", "", 0},
		{"harbor/quay", "ferry.harbor.test", "/tickets/1", "GET", 80, "httproute/harbor/ferry/rule/0/match/0/ferry_harbor_test", "harbor/quay/web", 0},
		{"harbor/quay", "ferry.harbor.test", "/ticketsx", "GET", 80, "httproute/harbor/ferry/rule/1/match/0/ferry_harbor_test", "harbor/quay/web", 0},
		{"harbor/quay", "barge.harbor.test", "/", "GET", 80, "httproute/harbor/barge/rule/0/match/0/barge_harbor_test", "", 0},
		{"harbor/quay", "tug.harbor.test", "/", "GET", 9000, "httproute/harbor/tug/rule/0/match/0/tug_harbor_test", "", 500},
		{"harbor/quay", "raft.harbor.test", "/", "GET", 80, "httproute/harbor/raft/rule/0/match/0/raft_harbor_test", "harbor/quay/web", 0},
		{"harbor/quay", "raft.harbor.test", "/", "GET", 9000, "", "", 0},
	}
	results := map[string]*Result{"city/gate": compileCase(t, "hostnames"), "harbor/quay": compileCase(t, "precedence")}
	for _, tc := range tests {
		gw := results[tc.gateway].Gateway(tc.gateway)
		ev := gw.Evaluate(&descriptor.Request{Method: tc.method, Host: tc.host, Path: tc.path, Headers: descriptor.HeaderMap{"x-passenger": {"p"}}}, tc.port)
		route := ""
		if ev.Route != nil {
			route = ev.Route.Name
		}
		var domains []string
		for _, c := range ev.Calls {
			domains = append(domains, c.Request.Domain)
		}
		direct := uint32(0)
		if ev.Route != nil {
			direct = ev.Route.DirectResponse
		}
		if route != tc.route || strings.Join(domains, ",") != tc.domains || direct != tc.direct {
			t.Errorf("Evaluate(%s %s%s port %d) = route %q, domains %q, direct %d; want %q, %q, %d\n%s", tc.method, tc.host, tc.path, tc.port,
				route, strings.Join(domains, ","), direct, tc.route, tc.domains, tc.direct, strings.Join(ev.Trace, "\n"))
		}
	}
}

// TestEvaluateMergedOrder checks the order of a merged route's calls: the listener's
// domain first, then the shared rules' domains by name, and the stream-done call of the
// rule with a response cost.
func TestEvaluateMergedOrder(t *testing.T) {
	gw := compileCase(t, "merge-strategic").Gateway("grain/mill")
	ev := gw.Evaluate(&descriptor.Request{Method: "GET", Host: "x", Path: "/", Headers: descriptor.HeaderMap{"x-baker": {"b"}}}, 80)
	var got []string
	for _, c := range ev.Calls {
		got = append(got, c.Filter+":"+strings.Join(c.Rules, "+"))
	}
	want := "envoy.filters.http.ratelimit:grain/flour-merge/rule/0+grain/mill-wide/rule/0 envoy.filters.http.ratelimit/grain/flour-merge:grain/flour-merge/rule/1 envoy.filters.http.ratelimit/grain/mill-wide:grain/mill-wide/rule/1"
	if strings.Join(got, " ") != want {
		t.Errorf("calls = %s\nwant %s", strings.Join(got, " "), want)
	}
	if len(ev.Done) != 1 || ev.Done[0].Rules[0] != "grain/flour-merge/rule/0" || *ev.Done[0].Request.Descriptors[0].HitsAddend != 2 {
		t.Errorf("done = %+v, want the response cost 2 of grain/flour-merge/rule/0", ev.Done)
	}
}

const localTopology = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: t}
spec:
  gatewayClassName: eg
  listeners: [{name: web, protocol: HTTP, port: 8080}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: t}
spec:
  parentRefs: [{name: gw}]
  rules: [{}]
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: young, namespace: t}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]
  rateLimit:
    local:
      rules:
      - limit: {requests: 10, unit: Minute}
      - clientSelectors: [{methods: [{value: GET}, {value: PUT}], sourceCIDR: {value: 10.1.2.3/16, type: Distinct}}]
        limit: {requests: 3, unit: Hour}
        shadowMode: true
`

func TestLocalLimiter(t *testing.T) {
	gw := compileFile(t, []byte(localTopology)).Gateway("t/gw")
	t0 := time.Unix(1_700_000_000, 0)
	run := func(l *LocalLimiter, method, addr string, at time.Duration) LocalDecision {
		t.Helper()
		ev := gw.Evaluate(&descriptor.Request{Method: method, Host: "x", Path: "/", RemoteAddress: addr}, 8080)
		if ev.Local == nil {
			t.Fatalf("no local rate limit:\n%s", strings.Join(ev.Trace, "\n"))
		}
		return l.Allow(t0.Add(at), ev.Local)
	}
	l := NewLocalLimiter()
	// The default bucket, 10 a minute, counts requests no rule matches.
	for i := range 10 {
		if d := run(l, "POST", "10.1.0.1", 0); !d.Allowed || d.By != "default" || d.Remaining != uint32(9-i) {
			t.Fatalf("request %d: %v, want the default bucket with %d left", i, d, 9-i)
		}
	}
	if d := run(l, "POST", "10.1.0.1", 0); d.Allowed {
		t.Fatalf("11th request: %v, want rejected", d)
	}
	if d := run(l, "POST", "10.1.0.1", 6*time.Second); !d.Allowed {
		t.Fatalf("after 6s: %v, want a token refilled", d)
	}
	// A shadow rule of 3 an hour per address: its empty bucket lets requests through.
	for i := range 5 {
		d := run(l, "GET", "10.1.0.2", 0)
		if !d.Allowed || d.By != "t/young/rule/1" || d.Shadowed != (i >= 3) {
			t.Fatalf("GET %d: %v", i, d)
		}
	}
	if d := run(l, "GET", "10.1.0.3", 0); d.Shadowed {
		t.Fatalf("another address: %v, want its own full bucket", d)
	}
}
