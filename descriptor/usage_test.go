package descriptor

import (
	"errors"
	"strings"
	"testing"
)

func TestUsageFromBody(t *testing.T) {
	sse := "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}],\"usage\":null}\n\n" +
		"event: message\r\ndata: {\"choices\":[],\r\ndata: \"usage\":{\"total_tokens\":57}}\r\n\r\n" +
		"data: [DONE]\n\n"
	tests := []struct {
		name, body, contentType, pointer string
		want                             uint64
		wantErr                          string // "" for success
	}{
		{name: "JSON", body: `{"id":"x","usage":{"prompt_tokens":9,"completion_tokens":12,"total_tokens":21}}`, contentType: "application/json", pointer: "/usage/total_tokens", want: 21},
		{name: "array index and escapes", body: `{"a/b":[{"~t":3},{"~t":4}]}`, pointer: "/a~1b/1/~0t", want: 4},
		{name: "SSE, multi-line data, before [DONE]", body: sse, contentType: "text/event-stream; charset=utf-8", pointer: "/usage/total_tokens", want: 57},
		{name: "SSE without [DONE]", body: "data: {\"usage\":{\"total_tokens\":5}}\n\n", contentType: "Text/Event-Stream", pointer: "/usage/total_tokens", want: 5},
		{name: "no usage", body: `{"id":"x"}`, pointer: "/usage/total_tokens", wantErr: "nothing at /usage/total_tokens"},
		{name: "usage null", body: `{"usage":null}`, pointer: "/usage/total_tokens", wantErr: "nothing at /usage/total_tokens"},
		{name: "not a number", body: `{"usage":{"total_tokens":"12"}}`, pointer: "/usage/total_tokens", wantErr: "is a string, not a number"},
		{name: "negative", body: `{"usage":{"total_tokens":-1}}`, pointer: "/usage/total_tokens", wantErr: "not a non-negative integer"},
		{name: "fraction", body: `{"usage":{"total_tokens":1.5}}`, pointer: "/usage/total_tokens", wantErr: "not a non-negative integer"},
		{name: "not JSON", body: `<html>busy</html>`, pointer: "/usage/total_tokens", wantErr: "the body is not JSON"},
		{name: "two documents", body: `{} {}`, pointer: "/usage/total_tokens", wantErr: "not one JSON document"},
		{name: "SSE of nothing but [DONE]", body: "data: [DONE]\n\n", contentType: "text/event-stream", pointer: "/usage/total_tokens", wantErr: "no data event before [DONE]"},
		{name: "SSE whose last event is not JSON", body: "data: hello\n\ndata: [DONE]\n\n", contentType: "text/event-stream", pointer: "/usage", wantErr: "the body is not JSON"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := UsageFromBody([]byte(tc.body), tc.contentType, tc.pointer)
			if tc.wantErr == "" {
				if err != nil || got != tc.want {
					t.Fatalf("UsageFromBody = %d, %v; want %d", got, err, tc.want)
				}
				return
			}
			if err == nil || !errors.Is(err, ErrNoUsage) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("UsageFromBody = %d, %v; want an ErrNoUsage containing %q", got, err, tc.wantErr)
			}
		})
	}
}

func TestGenerateResponseCost(t *testing.T) {
	cfg, err := Decode([]byte(`{"rateLimitPolicies":[{"rateLimitDomain":"d","upstreamCluster":"c","hostnames":["*"],"gatewayActions":[{"configurations":[
		{"actions":[{"generic_key":{"descriptor_value":"req"}}]},
		{"actions":[{"generic_key":{"descriptor_value":"tokens"}}],"hits_addend":{"response_body":{"json_pointer":"/usage/total_tokens"}}}]}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	e, err := Compile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res := e.Generate(&Request{Host: "a.com", Path: "/", Method: "POST"})
	if len(res.Descriptors) != 2 || len(res.ResponseCosts) != 1 {
		t.Fatalf("descriptors %+v, response costs %+v; want 2 and 1", res.Descriptors, res.ResponseCosts)
	}
	rc := res.ResponseCosts[0]
	d := res.Descriptors[rc.Descriptor]
	if rc.JSONPointer != "/usage/total_tokens" || d.Entries[0].Value != "tokens" || d.HitsAddend == nil || *d.HitsAddend != 0 {
		t.Errorf("response cost %+v on descriptor %+v; want the tokens descriptor checked at hits_addend 0", rc, d)
	}
	if res.Descriptors[0].HitsAddend != nil {
		t.Errorf("the request descriptor got hits_addend %d", *res.Descriptors[0].HitsAddend)
	}
	e.GenerateInto(&Request{Host: "a.com", Path: "/"}, res)
	if len(res.ResponseCosts) != 1 {
		t.Errorf("a second generation has %d response costs, want 1 (reset between requests)", len(res.ResponseCosts))
	}
}
