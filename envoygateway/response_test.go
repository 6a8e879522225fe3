package envoygateway

import (
	"strconv"
	"strings"
	"testing"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/policyapi"
)

const responseInput = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: lab}
spec:
  gatewayClassName: eg
  listeners:
  - {name: web, protocol: HTTP, port: 80}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: llm, namespace: lab}
spec:
  parentRefs: [{name: gw}]
  rules:
  - backendRefs: [{name: model, port: 8080}]
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: budgets, namespace: lab}
spec:
  targetRefs:
  - {group: gateway.networking.k8s.io, kind: HTTPRoute, name: llm}
  rateLimit:
    global:
      rules:
      - clientSelectors:
        - headers: [{name: x-tenant-id, type: Distinct}]
        limit:
          requests: 1000
          unit: Hour
          fromMetadata: {namespace: io.envoy.ai_gateway, key: budget}
        cost:
          request: {from: Number, number: 0}
          response: {from: Metadata, metadata: {namespace: io.envoy.ai_gateway, key: llm_total_token}}
      - clientSelectors:
        - headers: [{name: x-tenant-id, type: Distinct}]
        limit: {requests: 50, unit: Hour}
        cost:
          response: {from: Metadata, metadata: {namespace: io.shop.usage, key: calls}}
`

// TestEvaluateResponse checks what a response writes for the descriptors sent when it is
// done: AI Gateway's tokens at the end of a 2xx response only, in a call of their own
// marked FromResponse; the request's metadata otherwise.
func TestEvaluateResponse(t *testing.T) {
	gw := compileFile(t, []byte(responseInput)).Gateway("lab/gw")
	u := func(n uint64) *uint64 { return &n }
	tests := []struct {
		name     string
		metadata descriptor.Metadata
		resp     *Response
		want     string // per done call: "<F if FromResponse>rule:hits ..." joined with " | "
		trace    string
	}{
		{"no response", nil, nil, "", ""},
		{"no response, request metadata", descriptor.Metadata{"io.shop.usage": map[string]any{"calls": 2.0}}, nil, "lab/budgets/rule/1:2", ""},
		{"200", descriptor.Metadata{"io.shop.usage": map[string]any{"calls": 2.0}}, &Response{Tokens: u(500)},
			"lab/budgets/rule/1:2 | Flab/budgets/rule/0:500", "at the end of the 200 response Envoy AI Gateway writes io.envoy.ai_gateway: llm_total_token = 500"},
		{"201 without usage", nil, &Response{Status: 201}, "Flab/budgets/rule/0:0", "llm_total_token = 0"},
		{"503", nil, &Response{Status: 503, Tokens: u(500)}, "", "the response's status 503 is not 2xx"},
		{"503, request metadata", descriptor.Metadata{"io.envoy.ai_gateway": map[string]any{"llm_total_token": 7.0}}, &Response{Status: 503, Tokens: u(500)}, "lab/budgets/rule/0:7", "not 2xx"},
		{"200 over request metadata", descriptor.Metadata{"io.envoy.ai_gateway": map[string]any{"llm_total_token": 7.0}}, &Response{Tokens: u(9)}, "Flab/budgets/rule/0:9", "= 9"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := &descriptor.Request{Method: "POST", Host: "llm.lab.test", Path: "/v1/chat/completions",
				Headers: descriptor.HeaderMap{"x-tenant-id": {"acme"}}}
			if tc.metadata != nil {
				req.DynamicMetadata = tc.metadata
			}
			ev := gw.EvaluateResponse(req, 80, tc.resp)
			var calls []string
			for _, c := range ev.Done {
				var ds []string
				for i, d := range c.Request.Descriptors {
					s := c.Rules[i] + ":"
					if c.FromResponse {
						s = "F" + s
					}
					if d.HitsAddend != nil {
						s += itoa(*d.HitsAddend)
					}
					ds = append(ds, s)
				}
				calls = append(calls, strings.Join(ds, " "))
			}
			if got := strings.Join(calls, " | "); got != tc.want {
				t.Errorf("done calls %q, want %q\n%s", got, tc.want, strings.Join(ev.Trace, "\n"))
			}
			if trace := strings.Join(ev.Trace, "\n"); !strings.Contains(trace, tc.trace) {
				t.Errorf("trace does not say %q:\n%s", tc.trace, trace)
			}
			if tc.resp == nil {
				plain := gw.Evaluate(req, 80)
				if len(plain.Done) != len(ev.Done) {
					t.Errorf("EvaluateResponse(nil) has %d done calls, Evaluate %d", len(ev.Done), len(plain.Done))
				}
			}
		})
	}
}

// TestResponseLimitFromMetadata checks that the descriptor sent when the response is done
// takes its limit from the metadata as it is then.
func TestResponseLimitFromMetadata(t *testing.T) {
	gw := compileFile(t, []byte(responseInput)).Gateway("lab/gw")
	n := uint64(3)
	req := &descriptor.Request{Method: "POST", Host: "llm.lab.test", Path: "/",
		Headers:         descriptor.HeaderMap{"x-tenant-id": {"acme"}},
		DynamicMetadata: descriptor.Metadata{"io.envoy.ai_gateway": map[string]any{"budget": map[string]any{"requests_per_unit": 20.0, "unit": "HOUR"}}}}
	ev := gw.EvaluateResponse(req, 80, &Response{Tokens: &n})
	if len(ev.Done) != 1 || ev.Done[0].Request.Descriptors[0].Limit == nil || ev.Done[0].Request.Descriptors[0].Limit.RequestsPerUnit != 20 {
		t.Fatalf("done calls %+v, want one whose descriptor's limit is 20 an hour", ev.Done)
	}
}

// TestResponseOf reads a contract response: its tokens, else a body's usage.total_tokens.
func TestResponseOf(t *testing.T) {
	n := uint64(5)
	for _, tc := range []struct {
		in   *policyapi.Response
		want string
	}{
		{nil, "none"},
		{&policyapi.Response{Tokens: &n, Status: 503}, "503 5"},
		{&policyapi.Response{Body: []byte(`{"usage": {"total_tokens": 42}}`)}, "0 42"},
		{&policyapi.Response{Body: []byte(`{"usage": {}}`)}, "0 -"},
		{&policyapi.Response{Body: []byte(`data: {}`)}, "0 -"},
	} {
		r := responseOf(&policyapi.Request{Response: tc.in})
		got := "none"
		if r != nil {
			got = itoa(uint64(r.Status)) + " -"
			if r.Tokens != nil {
				got = itoa(uint64(r.Status)) + " " + itoa(*r.Tokens)
			}
		}
		if got != tc.want {
			t.Errorf("responseOf(%+v) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }
