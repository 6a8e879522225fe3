package policytest

import (
	"errors"
	"testing"

	"github.com/rlpkit/rlpkit/policy"
)

// FuzzParseLogLine: no line makes the parser panic, and a line it accepts has a start time.
func FuzzParseLogLine(f *testing.F) {
	f.Add(`{"start_time":"2024-01-01T00:00:00.5Z","method":"POST","path":"\/a\u0062","nested":{"x":[1,"}"]},"authority":"h","x_forwarded_for":"192.0.2.1, 10.0.0.1"}`)
	f.Add(`[2024-01-01T00:00:00.000Z] "GET /toy?x=1 HTTP/2" 200 - 0 10 3 2 "203.0.113.9" "curl" "id" "www.toystore.com" "10.1.0.1:80"`)
	f.Add(`{"start_time":"2024-01-01T00:00:00Z","a":"\\"}`)
	f.Add(`[x] "`)
	f.Fuzz(func(t *testing.T, line string) {
		var e LogEntry
		if err := ParseLogLine([]byte(line), &e); err == nil && e.Time.IsZero() {
			t.Errorf("ParseLogLine(%q) accepted a line without a start time", line)
		}
	})
}

// FuzzDecode: no input makes Decode panic; it returns tests or policy.Errors, never both.
func FuzzDecode(f *testing.F) {
	f.Add("apiVersion: rlpkit.dev/v1alpha1\nkind: PolicyTest\nmetadata: {name: t}\nspec:\n  inputs: [.]\n  gateway: ns/gw\n  cases:\n  - name: a\n    request: {url: 'http://a/'}\n    steps: [{at: +1s, repeat: 2, want: OK, reset: 1s}]\n")
	f.Add("kind: PolicyTest\nspec: {cases: [{steps: [{at: '-1s'}]}]}\n")
	f.Fuzz(func(t *testing.T, input string) {
		tests, err := Decode("f.yaml", []byte(input))
		var errs policy.Errors
		if err != nil && (tests != nil || !errors.As(err, &errs)) {
			t.Errorf("Decode() = %d tests, %T %v; want policy.Errors and no tests", len(tests), err, err)
		}
	})
}
