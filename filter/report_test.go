package filter

import (
	"strings"
	"testing"

	"github.com/rlpkit/rlpkit/descriptor"
)

// TestReportKeepsSSETail streams a long server-sent-events body in small chunks: the report
// keeps only its last events, and the usage before [DONE] is still found.
func TestReportKeepsSSETail(t *testing.T) {
	var body strings.Builder
	for range 5000 {
		body.WriteString("data: {\"choices\":[{\"delta\":{\"content\":\"token token token token\"}}],\"usage\":null}\n\n")
	}
	body.WriteString("data: {\"usage\":{\"total_tokens\":5000}}\n\ndata: [DONE]\n\n")
	p := &pendingReport{sse: true}
	s := body.String()
	for i := 0; i < len(s); i += 1000 {
		p.add([]byte(s[i:min(i+1000, len(s))]))
	}
	if p.tooLong || len(p.body) > 70<<10 {
		t.Fatalf("kept %d bytes (too long %v) of a %d-byte SSE body, want its tail under 70 KiB", len(p.body), p.tooLong, len(s))
	}
	n, err := descriptor.UsageFromBody(p.body, "text/event-stream", "/usage/total_tokens")
	if err != nil || n != 5000 {
		t.Fatalf("usage = %d, %v; want 5000", n, err)
	}
}

// TestReportJSONTooLong refuses a JSON body longer than maxReportBody.
func TestReportJSONTooLong(t *testing.T) {
	p := &pendingReport{}
	chunk := make([]byte, 1<<20)
	for range 5 {
		p.add(chunk)
	}
	if !p.tooLong || p.body != nil {
		t.Fatalf("a 5 MiB JSON body: too long %v, kept %d bytes; want refused", p.tooLong, len(p.body))
	}
}
