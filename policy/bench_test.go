package policy

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkDecodeToystore decodes and validates the toystore example's Gateway, HTTPRoute and
// two RateLimitPolicies: the cost of reading a small repository's policies once.
func BenchmarkDecodeToystore(b *testing.B) {
	var data []byte
	for _, name := range []string{"gateway.yaml", "httproute.yaml", "policies.yaml"} {
		part, err := os.ReadFile(filepath.Join("..", "examples", "toystore", name))
		if err != nil {
			b.Fatal(err)
		}
		data = append(append(data, part...), "\n---\n"...)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Decode("toystore.yaml", data); err != nil {
			b.Fatal(err)
		}
	}
}
