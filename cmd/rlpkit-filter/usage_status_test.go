package main

import (
	"testing"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/protobuf/proto"
)

// TestResponseUsageAnyStatus: as wasm-shim v0.14.1, which reads only the response's
// content-type and never its status, a response that is not 2xx is charged the usage its
// body reports (an upstream's 500 after a partial generation), and one whose body holds no
// usage (a provider's 429 error) sends no report and passes.
func TestResponseUsageAnyStatus(t *testing.T) {
	ok, _ := proto.Marshal(&rlsv3.RateLimitResponse{OverallCode: rlsv3.RateLimitResponse_OK})
	tests := []struct {
		status string
		body   string
		want   uint64 // 0: no report
	}{
		{"500", `{"error":{"message":"upstream reset"},"usage":{"prompt_tokens":9,"completion_tokens":4,"total_tokens":13}}`, 13},
		{"400", `{"usage":{"total_tokens":7}}`, 7},
		{"429", `{"error":{"message":"rate limit reached for requests","type":"requests"}}`, 0},
		{"503", `upstream connect error`, 0},
		{"200", `{"usage":{"total_tokens":21}}`, 21},
	}
	h, configured := newHost(t, module, []byte(usageConfig), withCannedCluster("rate-limit-cluster", ok))
	if !configured {
		t.Fatalf("proxy_on_configure failed:\n%s", h.dump())
	}
	for _, tc := range tests {
		s := h.request(get("POST", "llm.example.com", "/v1/chat/completions", "203.0.113.7:41000"))
		h.deliver(h.next())
		if got := outcome(t, s); got != "continue" {
			t.Fatalf("status %s: request = %s, want continue", tc.status, got)
		}
		h.respondStreaming(s, [][2]string{{":status", tc.status}, {"content-type", "application/json"}})
		if a := h.respondBody(s, tc.body, true); a != statusContinue {
			t.Fatalf("status %s: proxy_on_response_body = %d, want Continue", tc.status, a)
		}
		if tc.want == 0 {
			if n := len(h.done); n != 0 {
				t.Fatalf("status %s, body %s: %d calls after the response, want none", tc.status, tc.body, n)
			}
			h.end(s)
			continue
		}
		r := h.next()
		var report rlsv3.RateLimitRequest
		if err := proto.Unmarshal(r.message, &report); err != nil {
			t.Fatal(err)
		}
		if d := report.GetDescriptors(); len(d) != 1 || d[0].GetHitsAddend().GetValue() != tc.want {
			t.Fatalf("status %s: report %v; want one descriptor charging %d", tc.status, &report, tc.want)
		}
		h.deliver(r)
		h.end(s)
	}
}
