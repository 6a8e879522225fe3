package policy

import "testing"

// TestPolicyTestIsSkipped: a PolicyTest (rlpkit.dev/v1alpha1) may sit beside the objects it
// tests; reading the directory leaves it out of the Set without a problem, while a PolicyTest
// of another apiVersion is still an unknown input.
func TestPolicyTestIsSkipped(t *testing.T) {
	tests := []struct {
		name    string
		input   string
		wantErr string
	}{
		{
			name: "rlpkit.dev/v1alpha1 is skipped",
			input: `apiVersion: rlpkit.dev/v1alpha1
kind: PolicyTest
metadata: {name: t}
spec: {anything: [1, 2]}
---
apiVersion: v1
kind: Namespace
metadata: {name: ns}
`,
		},
		{
			name: "another apiVersion is a problem",
			input: `apiVersion: example.com/v1
kind: PolicyTest
metadata: {name: t}
`,
			wantErr: `in.yaml:2: kind: Unsupported value: "PolicyTest": supported kinds: Gateway, HTTPRoute (gateway.networking.k8s.io/v1), RateLimitPolicy (apim.kuadrant.io/v1alpha1), Namespace, List (v1)`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			set, err := Decode("in.yaml", []byte(tc.input))
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.wantErr {
				t.Fatalf("Decode() error = %q, want %q", got, tc.wantErr)
			}
			if tc.wantErr == "" && len(set.Namespaces) != 1 {
				t.Errorf("Decode() = %d Namespaces, want the 1 beside the PolicyTest", len(set.Namespaces))
			}
		})
	}
}
