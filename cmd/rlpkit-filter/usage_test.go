package main

import (
	"strings"
	"testing"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/protobuf/proto"
)

// usageConfig limits requests per client and charges tokens from the response body.
const usageConfig = `{"timeout":"5s","rateLimitPolicies":[{"name":"llm","rateLimitDomain":"llm","upstreamCluster":"rate-limit-cluster","hostnames":["*"],
 "gatewayActions":[{"configurations":[
  {"actions":[{"remote_address":{}}]},
  {"actions":[{"generic_key":{"descriptor_value":"tokens"}}],"hits_addend":{"response_body":{"json_pointer":"/usage/total_tokens"}}}]}]}]}`

// TestResponseUsage sends responses through the module in chunks: a JSON body and an SSE
// body charge their usage in a second ShouldRateLimit to the same domain; no usage and a
// body that is not JSON send nothing, pass every chunk, and are logged at warning level
// once.
func TestResponseUsage(t *testing.T) {
	ok, _ := proto.Marshal(&rlsv3.RateLimitResponse{OverallCode: rlsv3.RateLimitResponse_OK})
	sse := []string{
		"data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}],\"usage\":null}\n\ndata: {\"choices\":[{\"del",
		"ta\":{\"content\":\"lo\"}}],\"usage\":null}\n\n",
		"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":20,\"completion_tokens\":37,\"total_tokens\":57}}\n",
		"\ndata: [DONE]\n\n",
	}
	tests := []struct {
		name        string
		contentType string
		chunks      []string
		want        uint64 // 0: no report
	}{
		{name: "JSON", contentType: "application/json", chunks: []string{`{"id":"c1","usage":{"prompt_tokens":9,`, `"completion_tokens":12,"total_tokens":21}}`}, want: 21},
		{name: "SSE", contentType: "text/event-stream", chunks: sse, want: 57},
		{name: "no usage", contentType: "application/json", chunks: []string{`{"id":"c1"}`}},
		{name: "not JSON", contentType: "text/html", chunks: []string{"<html>", "busy</html>"}},
		{name: "no usage again", contentType: "application/json", chunks: []string{`{"usage":{}}`}},
	}
	h, configured := newHost(t, module, []byte(usageConfig), withCannedCluster("rate-limit-cluster", ok))
	if !configured {
		t.Fatalf("proxy_on_configure failed:\n%s", h.dump())
	}
	for _, tc := range tests {
		s := h.request(get("POST", "llm.example.com", "/v1/chat/completions", "203.0.113.7:41000"))
		c := h.next()
		var check rlsv3.RateLimitRequest
		if err := proto.Unmarshal(c.message, &check); err != nil {
			t.Fatal(err)
		}
		if d := check.GetDescriptors(); len(d) != 2 || d[1].GetHitsAddend().GetValue() != 0 || d[1].GetHitsAddend() == nil || d[0].GetHitsAddend() != nil {
			t.Fatalf("%s: the check sent %v; want the tokens descriptor at hits_addend 0 beside the request one", tc.name, d)
		}
		h.deliver(c)
		if got := outcome(t, s); got != "continue" {
			t.Fatalf("%s: request = %s, want continue", tc.name, got)
		}
		h.respondStreaming(s, [][2]string{{":status", "200"}, {"content-type", tc.contentType + "; charset=utf-8"}})
		for i, chunk := range tc.chunks {
			if a := h.respondBody(s, chunk, i == len(tc.chunks)-1); a != statusContinue {
				t.Fatalf("%s: chunk %d: proxy_on_response_body = %d, want Continue (chunks pass on as they arrive)", tc.name, i, a)
			}
		}
		if tc.want == 0 {
			if n := len(h.done); n != 0 {
				t.Fatalf("%s: %d calls after the response, want none", tc.name, n)
			}
			h.end(s)
			continue
		}
		r := h.next()
		var report rlsv3.RateLimitRequest
		if err := proto.Unmarshal(r.message, &report); err != nil {
			t.Fatal(err)
		}
		d := report.GetDescriptors()
		if r.method != "ShouldRateLimit" || report.GetDomain() != "llm" || len(d) != 1 || len(d[0].GetEntries()) != 1 ||
			d[0].GetEntries()[0].GetValue() != "tokens" || d[0].GetHitsAddend().GetValue() != tc.want {
			t.Fatalf("%s: report %s %v; want ShouldRateLimit to domain llm charging tokens %d", tc.name, r.method, &report, tc.want)
		}
		h.deliver(r)
		h.end(s)
	}
	var warned, debug int
	for _, l := range h.logs {
		if strings.Contains(l, "no usage reported") {
			if strings.HasPrefix(l, "[3]") {
				warned++
			} else {
				debug++
			}
		}
	}
	if warned != 1 || debug != 2 {
		t.Errorf("%d warnings and %d debug lines about missing usage, want 1 and 2:\n%s", warned, debug, h.dump())
	}
}
