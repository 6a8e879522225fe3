package policytest

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// TestSimulatorTokens replays a free tenant's requests whose lines give total_tokens: the
// TokenRateLimitPolicy's check admits while its 500-token budget has room for one more and
// the reports charge the tokens, so the fourth request of 200 tokens is refused; lines
// without total_tokens report nothing and all pass.
func TestSimulatorTokens(t *testing.T) {
	target, err := CompileTopology([]string{filepath.Join("..", "kuadrant", "testdata", "compile", "token-route", "input.yaml")}, "gateway-system/ai-gateway")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		tokens            string
		admitted, limited int64
	}{{`,"total_tokens":200`, 3, 2}, {`,"total_tokens":"200"`, 3, 2}, {"", 5, 0}} {
		sim, err := NewSimulator(target)
		if err != nil {
			t.Fatal(err)
		}
		var e LogEntry
		for i := range 5 {
			line := fmt.Sprintf(`{"start_time":%q,"method":"POST","path":"/v1/chat/completions","authority":"llm.example.com","x_tenant":"a","x_tier":"free"%s}`,
				start.Add(time.Duration(i)*time.Second).Format(time.RFC3339), tc.tokens)
			if err := ParseLogLine([]byte(line), &e); err != nil {
				t.Fatal(err)
			}
			if _, err := sim.Replay(&e); err != nil {
				t.Fatal(err)
			}
		}
		found := false
		for _, ls := range sim.Report().Limits {
			if ls.Limit.Name != "free-tier" {
				continue
			}
			found = true
			if ls.Admitted != tc.admitted || ls.Limited != tc.limited {
				t.Errorf("tokens %q: free-tier admitted %d, limited %d; want %d, %d", tc.tokens, ls.Admitted, ls.Limited, tc.admitted, tc.limited)
			}
		}
		if !found {
			t.Errorf("tokens %q: no free-tier limit in the report", tc.tokens)
		}
	}
	var e LogEntry
	if err := ParseLogLine([]byte(`{"start_time":"2024-01-01T00:00:00Z","total_tokens":-3}`), &e); err == nil {
		t.Error("total_tokens -3: no error")
	}
}
