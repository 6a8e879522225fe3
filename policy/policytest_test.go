package policy

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPolicyTestIsSkipped: a PolicyTest (rlpkit.dev/v1alpha1) may sit beside the objects it
// tests; reading the directory leaves it out of the Set without a problem or a notice, while
// a PolicyTest of another apiVersion is a foreign object like any other: skipped, noticed.
func TestPolicyTestIsSkipped(t *testing.T) {
	tests := []struct {
		name        string
		input       string
		wantNotices []Notice
	}{
		{
			name: "rlpkit.dev/v1alpha1 is left out silently",
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
			name: "another apiVersion is noticed",
			input: `apiVersion: example.com/v1
kind: PolicyTest
metadata: {name: t}
---
apiVersion: v1
kind: Namespace
metadata: {name: ns}
`,
			wantNotices: []Notice{{File: "in.yaml", Detail: "example.com/v1 PolicyTest"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			set, err := Decode("in.yaml", []byte(tc.input))
			if err != nil {
				t.Fatalf("Decode() = %v, want no problem", err)
			}
			if len(set.Namespaces) != 1 {
				t.Errorf("Decode() = %d Namespaces, want the 1 beside the PolicyTest", len(set.Namespaces))
			}
			if diff := cmp.Diff(tc.wantNotices, set.Notices); diff != "" {
				t.Errorf("Decode() notices (-want +got):\n%s", diff)
			}
		})
	}
}
