package envoyratelimit

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/limit/counter"
)

// BenchmarkEvaluateLimits is one request matching one limit among n in its
// domain: n values of one key (exact), n first-level values each with a
// nested key (nested), n wildcard values (wildcard). Goal: ns/op flat
// within 2x from 10 to 100,000 limits.
func BenchmarkEvaluateLimits(b *testing.B) {
	for _, shape := range []string{"exact", "nested", "wildcard"} {
		for _, n := range []int{10, 1_000, 100_000} {
			b.Run(shape+"/limits="+strconv.Itoa(n), func(b *testing.B) {
				var cfg strings.Builder
				cfg.WriteString("domain: d\ndescriptors:\n")
				for i := range n {
					v := "l" + strconv.Itoa(i)
					switch shape {
					case "exact":
						cfg.WriteString("  - {key: limit_id, value: " + v + ", rate_limit: {unit: minute, requests_per_unit: 1000000000}}\n")
					case "nested":
						cfg.WriteString("  - key: tenant\n    value: " + v + "\n    descriptors:\n      - {key: user, rate_limit: {unit: minute, requests_per_unit: 1000000000}}\n")
					case "wildcard":
						cfg.WriteString("  - {key: limit_id, value: \"" + v + "-*\", rate_limit: {unit: minute, requests_per_unit: 1000000000}}\n")
					}
				}
				c, err := Load([]File{{Key: "config.d", Data: []byte(cfg.String())}}, LoadOptions{})
				if err != nil {
					b.Fatal(err)
				}
				ev, err := NewEvaluator(Options{Store: counter.NewMemoryStore(counter.MemoryOptions{})})
				if err != nil {
					b.Fatal(err)
				}
				ev = ev.WithConfig(c)
				v := "l" + strconv.Itoa(n/2)
				r := req(desc("limit_id", v))
				switch shape {
				case "nested":
					r = req(desc("tenant", v, "user", "alice"))
				case "wildcard":
					r = req(desc("limit_id", v+"-x"))
				}
				now := time.Unix(1_700_000_000, 0)
				var res Response
				b.ReportAllocs()
				for b.Loop() {
					if err := ev.Evaluate(b.Context(), now, &r, &res); err != nil {
						b.Fatal(err)
					}
				}
				if len(res.Counters) != 1 {
					b.Fatalf("the request counted on %d limits, want 1", len(res.Counters))
				}
			})
		}
	}
}
