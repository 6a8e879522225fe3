package main

import (
	"testing"

	rlcommon "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"

	"github.com/rlpkit/rlpkit/kuadrant"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/wasmshim"
)

// kuadrantTopology is kuadrant-operator's toystore example with windows no test run
// crosses.
const kuadrantTopology = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: kuadrant-ingressgateway, namespace: gateway-system}
spec:
  gatewayClassName: istio
  listeners:
  - {name: http, port: 80, protocol: HTTP, allowedRoutes: {namespaces: {from: All}}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: toystore, namespace: toystore}
spec:
  parentRefs: [{name: kuadrant-ingressgateway, namespace: gateway-system}]
  hostnames: [api.toystore.com]
  rules:
  - matches: [{path: {type: PathPrefix, value: /toys}}]
---
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata: {name: toystore-rlp, namespace: toystore}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: toystore}
  limits:
    global:
      rates: [{limit: 100, window: 1h}]
    per-ip:
      rates: [{limit: 2, window: 1h}]
      counters: [{expression: source.remote_address}]
      when: [{predicate: "request.method == 'POST'"}]
`

// TestServeKuadrantV1 runs the whole path offline: kuadrant.io/v1 objects -> the wasm-shim
// configuration -> a request's descriptors -> the decision of serve on the same objects.
func TestServeKuadrantV1(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "toystore.yaml", kuadrantTopology)
	s := startServe(t, "--addr", "127.0.0.1:0", file)

	set, err := policy.Read([]string{file}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := kuadrant.Compile(set, kuadrant.Options{})
	ev, err := wasmshim.New(&res.Gateways[0].Wasm)
	if err != nil {
		t.Fatal(err)
	}
	request := func(method, ip string) []string {
		out := ev.Evaluate(&wasmshim.Request{Method: method, Host: "api.toystore.com", Path: "/toys/1", SourceAddress: ip + ":4000"})
		if len(out.Calls) != 1 {
			t.Fatalf("Evaluate(%s from %s) = %d calls, want 1:\n%s", method, ip, len(out.Calls), out.Explain())
		}
		c := out.Calls[0]
		d := &rlcommon.RateLimitDescriptor{}
		for _, e := range c.Entries {
			d.Entries = append(d.Entries, &rlcommon.RateLimitDescriptor_Entry{Key: e.Key, Value: e.Value})
		}
		return summary(t, s.mustCall(t, rlsRequest(c.Domain, 0, d)))
	}
	steps := []struct {
		method, ip string
		want       []string
	}{
		{"POST", "10.0.0.1", []string{"OK", `OK "per-ip" 2/HOUR remaining 1`}},
		{"POST", "10.0.0.1", []string{"OK", `OK "per-ip" 2/HOUR remaining 0`}},
		{"POST", "10.0.0.1", []string{"OVER_LIMIT", `OVER_LIMIT "per-ip" 2/HOUR remaining 0`}},
		{"POST", "10.0.0.2", []string{"OK", `OK "per-ip" 2/HOUR remaining 1`}},
		{"GET", "10.0.0.1", []string{"OK", `OK "global" 100/HOUR remaining 96`}},
	}
	for i, st := range steps {
		got := request(st.method, st.ip)
		if len(got) != len(st.want) || got[0] != st.want[0] || got[1] != st.want[1] {
			t.Errorf("step %d: %s from %s = %q, want %q", i, st.method, st.ip, got, st.want)
		}
	}
}
