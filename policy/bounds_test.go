package policy_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlpkit/rlpkit/inputlimit/inputlimittest"
	"github.com/rlpkit/rlpkit/policy"
)

// TestReadBounds: policies past a limit on input (aliases, nesting, size)
// are refused, naming the file and the limit.
func TestReadBounds(t *testing.T) {
	const head = "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: r\n  namespace: ns\n  annotations:\n    x: "
	tests := []struct{ name, in, want string }{
		{"aliases", head + inputlimittest.Laughs(5) + "\n", "bomb.yaml:7: YAML: aliases and merge keys expand the document by more than 100000 values"},
		{"nesting", head + inputlimittest.TooDeep() + "\n", "bomb.yaml:7: YAML: collections nest more than 1000 deep"},
		{"size", inputlimittest.Padding() + head + "a\n", "bomb.yaml: the size, 16777335 bytes, exceeds the limit of 16777216 bytes (16 MiB)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "bomb.yaml")
			if err := os.WriteFile(file, []byte(tc.in), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := policy.Read([]string{file}, nil)
			if err == nil || !strings.Contains(err.Error(), strings.Replace(tc.want, "bomb.yaml", file, 1)) {
				t.Fatalf("Read = %.400v\nwant %s", err, tc.want)
			}
		})
	}
	t.Run("stdin", func(t *testing.T) {
		_, err := policy.Read([]string{"-"}, strings.NewReader(inputlimittest.Padding()))
		const want = "-: the size, more than 16777216 bytes, exceeds the limit of 16777216 bytes (16 MiB)"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("Read(stdin) = %.400v\nwant %s", err, want)
		}
	})
}
