package envoyroute

import (
	"strconv"
	"strings"
	"testing"

	"github.com/rlpkit/rlpkit/descriptor"
)

// tokenRoute checks a tenant at cost 0 and, when the stream is done, charges the tokens AI
// Gateway wrote; a second stream-done rate limit counts 1 per request.
const tokenRoute = `
virtual_hosts:
- name: llm
  domains: ["*"]
  routes:
  - match: {prefix: /}
    route:
      cluster: model
      rate_limits:
      - actions: [{generic_key: {descriptor_value: tokens}}]
        hits_addend: {number: 0}
      - apply_on_stream_done: true
        actions: [{generic_key: {descriptor_value: tokens}}]
        hits_addend: {format: "%DYNAMIC_METADATA(io.envoy.ai_gateway:llm_total_token)%"}
      - apply_on_stream_done: true
        actions: [{generic_key: {descriptor_value: done}}]
`

// TestStreamDoneResponse checks the stream-done calls: AI Gateway's tokens at the end of a
// 2xx response in a call of their own, marked FromResponse, and nothing from a 503.
func TestStreamDoneResponse(t *testing.T) {
	c := load(t, tokenRoute, Options{})
	n := uint64(120)
	for _, tc := range []struct {
		name     string
		resp     *Response
		metadata descriptor.Metadata
		want     string
		trace    string
	}{
		{"no response", nil, nil, "done", "a PolicyTest step's usage gives one"},
		{"200", &Response{Tokens: &n}, nil, "done | Ftokens:120", ""},
		{"201 without usage", &Response{Status: 201}, nil, "done | Ftokens:0", ""},
		{"503", &Response{Status: 503, Tokens: &n}, nil, "done", "the response is not 2xx"},
		{"503, request metadata", &Response{Status: 503, Tokens: &n}, descriptor.Metadata{"io.envoy.ai_gateway": map[string]any{"llm_total_token": 7.0}}, "tokens:7 done", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := Request{Method: "POST", Authority: "llm", Path: "/v1/chat/completions", Response: tc.resp}
			if tc.metadata != nil {
				req.Metadata = tc.metadata
			}
			ev := c.Evaluate(&req)
			var calls []string
			for _, call := range ev.Done {
				var ds []string
				for _, d := range call.Request.Descriptors {
					s := d.Entries[0].Value
					if call.FromResponse {
						s = "F" + s
					}
					if d.HitsAddend != nil {
						s += ":" + strconv.FormatUint(*d.HitsAddend, 10)
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
		})
	}
}
