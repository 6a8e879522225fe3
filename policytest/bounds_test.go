package policytest_test

import (
	"strings"
	"testing"

	"github.com/rlpkit/rlpkit/inputlimit/inputlimittest"
	"github.com/rlpkit/rlpkit/policytest"
)

// TestDecodeBounds: PolicyTest files past a limit on input (aliases,
// nesting, size) are refused, naming the file and the limit.
func TestDecodeBounds(t *testing.T) {
	const head = "apiVersion: rlpkit.dev/v1alpha1\nkind: PolicyTest\nmetadata: {name: t}\nspec:\n  inputs: [a.yaml]\n  cases:\n  - name: c\n    request: "
	tests := []struct{ name, in, want string }{
		{"aliases", head + inputlimittest.Laughs(5) + "\n", "t.yaml:8: YAML: aliases and merge keys expand the document by more than 100000 values"},
		{"nesting", head + inputlimittest.TooDeep() + "\n", "t.yaml:8: YAML: collections nest more than 1000 deep"},
		{"size", inputlimittest.Padding() + head + "{}\n", "t.yaml: YAML: the input's 16777349 bytes exceed the limit of 16777216 bytes (16 MiB)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := policytest.Decode("t.yaml", []byte(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Decode = %.400v\nwant %s", err, tc.want)
			}
		})
	}
}
