package policytest

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/rlsmsg"
)

// TestAIGateway runs testdata/aigateway/test.yaml: a step's usage is charged on an Envoy
// AI Gateway budget only for an admitted request with a 2xx response.
func TestAIGateway(t *testing.T) {
	runPassing(t, "aigateway", "test.yaml", 2)
}

// TestAIGatewayUsageStatus checks that a step's usage status is an HTTP status.
func TestAIGatewayUsageStatus(t *testing.T) {
	for _, status := range []int{99, 600, -1} {
		doc := fmt.Sprintf(`apiVersion: rlpkit.dev/v1alpha1
kind: PolicyTest
metadata: {name: t}
spec:
  inputs: [x.yaml]
  gateway: a/b
  cases:
  - name: c
    request: {url: "http://a/"}
    steps:
    - {want: OK, usage: {tokens: 1, status: %d}}
`, status)
		_, err := Decode("t.yaml", []byte(doc))
		if err == nil || !strings.Contains(err.Error(), "spec.cases[0].steps[0].usage.status: Invalid value: ") {
			t.Errorf("status %d: error %v, want one at spec.cases[0].steps[0].usage.status", status, err)
		}
	}
}

// TestSimulateAIGateway replays two tenants' requests whose lines give total_tokens and
// response_code: a tenant past its budget is refused and its refused request charges
// nothing, the other tenant is not affected, and a 503 charges nothing; the budget's
// tokens are those charged.
func TestSimulateAIGateway(t *testing.T) {
	target, err := CompileTopology([]string{filepath.Join("testdata", "aigateway", "inputs.yaml")}, "lab/gw")
	if err != nil {
		t.Fatal(err)
	}
	sim, err := NewSimulator(target)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	lines := []struct {
		tenant, extra string
		want          rlsmsg.Code
	}{
		{"acme", `,"response_code":200,"total_tokens":600`, rlsmsg.CodeOK},
		{"acme", `,"response_code":200,"total_tokens":600`, rlsmsg.CodeOK}, // checked at 600: served, 1200
		{"acme", `,"response_code":200,"total_tokens":600`, rlsmsg.CodeOverLimit},
		{"globex", `,"response_code":"200","total_tokens":600`, rlsmsg.CodeOK},
		{"globex", `,"response_code":503,"total_tokens":600`, rlsmsg.CodeOK},
		{"globex", `,"total_tokens":300`, rlsmsg.CodeOK},
		{"globex", `,"response_code":200,"total_tokens":100`, rlsmsg.CodeOK}, // checked at 900
	}
	var e LogEntry
	for i, l := range lines {
		line := fmt.Sprintf(`{"start_time":%q,"method":"POST","path":"/v1/chat/completions","authority":"llm.lab.test","x_tenant_id":%q%s}`,
			t0.Add(time.Duration(i)*time.Second).Format(time.RFC3339), l.tenant, l.extra)
		if err := ParseLogLine([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		d, err := sim.Replay(&e)
		if err != nil {
			t.Fatal(err)
		}
		if d.Code != l.want {
			t.Errorf("line %d (%s): %s, want %s; %s", i+1, l.tenant, d.Code, l.want, sim.Explain(&d))
		}
	}
	r := sim.Report()
	for _, ls := range r.Limits {
		var want uint64
		if ls.Limit.Name == "lab/budgets/rule/0" {
			want = 600 + 600 + 600 + 300 + 100
		}
		var inTimeline uint64
		for _, b := range ls.Timeline {
			inTimeline += b.Tokens
		}
		if ls.Tokens != want || inTimeline != want {
			t.Errorf("%s: %d tokens, %d in the timeline; want %d", ls.Limit.Name, ls.Tokens, inTimeline, want)
		}
	}
}

// TestParseLogLineStatus reads the response's status from JSON (a number or a string) and
// from the default text format, and refuses one that is not a status.
func TestParseLogLineStatus(t *testing.T) {
	var e LogEntry
	for line, want := range map[string]int{
		`{"start_time":"2024-01-01T00:00:00Z","response_code":503}`:                                                               503,
		`{"start_time":"2024-01-01T00:00:00Z","response_code":"201"}`:                                                             201,
		`{"start_time":"2024-01-01T00:00:00Z","response_code":"-"}`:                                                               0,
		`{"start_time":"2024-01-01T00:00:00Z"}`:                                                                                   0,
		`[2024-01-01T00:00:00.000Z] "POST /v1/chat/completions HTTP/1.1" 429 - 0 0 1 - "10.0.0.1" "curl" "id" "llm.lab.test" "-"`: 429,
		`[2024-01-01T00:00:00.000Z] "POST /v1/chat/completions HTTP/1.1" - - 0 0 1 - "10.0.0.1" "curl" "id" "llm.lab.test" "-"`:   0,
	} {
		if err := ParseLogLine([]byte(line), &e); err != nil {
			t.Errorf("%s: %v", line, err)
			continue
		}
		if e.Status != want {
			t.Errorf("%s: status %d, want %d", line, e.Status, want)
		}
	}
	for _, line := range []string{
		`{"start_time":"2024-01-01T00:00:00Z","response_code":"OK"}`,
		`{"start_time":"2024-01-01T00:00:00Z","response_code":700}`,
		`[2024-01-01T00:00:00.000Z] "GET / HTTP/1.1" abc - 0 0 1 - "-" "-" "-" "a" "-"`,
	} {
		if err := ParseLogLine([]byte(line), &e); err == nil || !strings.Contains(err.Error(), "response_code") {
			t.Errorf("%s: error %v, want one naming response_code", line, err)
		}
	}
}

// TestAIGatewayEnvoy runs testdata/aigateway-envoy: the same budget as an Envoy route
// configuration (spec.envoy), whose apply_on_stream_done rate limit reads the tokens AI
// Gateway writes at the end of a 2xx response.
func TestAIGatewayEnvoy(t *testing.T) {
	runPassing(t, "aigateway-envoy", "policytest.yaml", 1)
}
