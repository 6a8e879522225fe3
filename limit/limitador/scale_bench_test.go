package limitador

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// BenchmarkEvaluatorLimits is one request matching one limit among n in its
// namespace, each limit with its own condition and a variable, in the
// legacy form and in CEL as kuadrant-operator writes them. Goal: ns/op
// flat within 2x from 10 to 100,000 limits. The tryall runs try every limit
// of the namespace, as the Evaluator did before it indexed them.
func BenchmarkEvaluatorLimits(b *testing.B) {
	for _, mode := range []string{"legacy", "cel", "legacy-tryall", "cel-tryall"} {
		form, tryAll := strings.CutSuffix(mode, "-tryall")
		for _, n := range []int{10, 1_000, 100_000} {
			b.Run(mode+"/limits="+strconv.Itoa(n), func(b *testing.B) {
				limits := make([]Limit, n)
				for i := range limits {
					id := "limit.l" + strconv.Itoa(i) + "__53f76b2d"
					l := Limit{Namespace: "toystore", MaxValue: 1 << 31, Seconds: 60}
					if form == "legacy" {
						l.Conditions, l.Variables = []string{id + " == '1'"}, []string{"user"}
					} else {
						l.Conditions, l.Variables = []string{`descriptors[0]["` + id + `"] == "1"`}, []string{`descriptors[0]["user"]`}
					}
					limits[i] = l
				}
				e, err := NewEvaluator(limits, counter.NewMemoryStore(counter.MemoryOptions{}))
				if err != nil {
					b.Fatal(err)
				}
				if tryAll {
					e.domains["toystore"].index = nil
				}
				req := rlsmsg.Request{Domain: "toystore", Descriptors: []rlsmsg.Descriptor{
					{Entries: []rlsmsg.Entry{{Key: "limit.l" + strconv.Itoa(n/2) + "__53f76b2d", Value: "1"}, {Key: "user", Value: "alice"}}},
				}}
				var resp limit.Result
				ctx := context.Background()
				now := time.Unix(1_700_000_000, 0)
				b.ReportAllocs()
				for b.Loop() {
					if err := e.Evaluate(ctx, now, &req, &resp); err != nil {
						b.Fatal(err)
					}
				}
				if len(resp.Counters) != 1 {
					b.Fatalf("the request counted on %d limits, want 1", len(resp.Counters))
				}
			})
		}
	}
}
