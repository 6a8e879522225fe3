package yamljson_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/rlpkit/rlpkit/yamljson"
)

// policyList is one YAML document listing n RateLimitPolicies, 24 lines each.
func policyList(n int) []byte {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: List\nitems:\n")
	for i := range n {
		fmt.Fprintf(&b, `  - apiVersion: apim.kuadrant.io/v1alpha1
    kind: RateLimitPolicy
    metadata:
      name: policy-%d
      namespace: default
      labels:
        app.kubernetes.io/name: toystore
    spec:
      targetRef:
        group: gateway.networking.k8s.io
        kind: HTTPRoute
        name: route-%d
      default:
        rateLimits:
          - conditions: ["context.request.http.method == 'GET'"]
            variables:
              - context.request.http.method
            max_value: 5
            seconds: 10
          - conditions: []
            variables: ["auth.identity.userid"]
            max_value: 2
            seconds: 60
            enabled: yes
`, i, i)
	}
	return []byte(b.String())
}

// BenchmarkConvert measures Convert on one document of 100 policies (2,400
// lines); the peers are sigs.k8s.io/yaml.YAMLToJSON, which keeps no lines, and
// yaml.v3 decoding into any followed by encoding/json, which loses key order.
func BenchmarkConvert(b *testing.B) {
	data := policyList(100)
	b.Run("yamljson.Convert", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := yamljson.Convert(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sigs.k8s.io/yaml.YAMLToJSON", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := sigsyaml.YAMLToJSON(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("yaml.v3+encoding/json", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			var v any
			if err := yaml.Unmarshal(data, &v); err != nil {
				b.Fatal(err)
			}
			if _, err := json.Marshal(v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkLine measures finding the line of a path four levels deep in a
// mapping of 100 list items.
func BenchmarkLine(b *testing.B) {
	docs, err := yamljson.Convert(policyList(100))
	if err != nil {
		b.Fatal(err)
	}
	const path = "items[99].spec.default.rateLimits[1].seconds"
	if got := docs[0].Line(path); got != 3+99*24+23 {
		b.Fatalf("Line(%q) = %d, want %d", path, got, 3+99*24+23)
	}
	b.ReportAllocs()
	for b.Loop() {
		docs[0].Line(path)
	}
}
