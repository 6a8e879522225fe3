package limitador

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// The algorithm and store benchmarks are in limit/counter; this one measures
// the Evaluator on top of the memory store.

const benchKeys = 100_000

func benchKeyList() []string {
	keys := make([]string, benchKeys)
	for i := range keys {
		keys[i] = "user-" + strconv.Itoa(i)
	}
	return keys
}

// goroutineOffset spreads parallel benchmark goroutines over the keys.
var goroutineOffset atomic.Uint64

// BenchmarkEvaluator is one RLS request: two descriptors, three limits (a
// legacy condition, variables), memory store, 100,000 users.
func BenchmarkEvaluator(b *testing.B) {
	for _, tc := range []struct {
		name string
		cond string
	}{
		{"legacy", "method == 'GET'"},
		{"cel", "descriptors[0]['method'] == 'GET'"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			e, err := NewEvaluator([]Limit{
				{Namespace: "toystore", MaxValue: 1 << 31, Seconds: 60, Conditions: []string{tc.cond}, Variables: []string{"user"}},
				{Namespace: "toystore", MaxValue: 1 << 31, Seconds: 120, Variables: []string{"user", "path"}},
				{Namespace: "toystore", MaxValue: 1 << 31, Seconds: 3600},
			}, counter.NewMemoryStore(counter.MemoryOptions{}))
			if err != nil {
				b.Fatal(err)
			}
			keys := benchKeyList()
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				i := goroutineOffset.Add(7919)
				var resp limit.Result
				req := rlsmsg.Request{Domain: "toystore", Descriptors: []rlsmsg.Descriptor{
					{Entries: []rlsmsg.Entry{{Key: "method", Value: "GET"}, {Key: "user", Value: ""}, {Key: "path", Value: "/toys"}}},
					{Entries: []rlsmsg.Entry{{Key: "user", Value: ""}, {Key: "path", Value: "/"}}},
				}}
				ctx := context.Background()
				for pb.Next() {
					i++
					req.Descriptors[0].Entries[1].Value = keys[i%benchKeys]
					req.Descriptors[1].Entries[0].Value = keys[(i+1)%benchKeys]
					if err := e.Evaluate(ctx, time.Now(), &req, &resp); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// BenchmarkEvaluatorKuadrant is one request as Kuadrant's wasm-shim sends it to the limits
// kuadrant-operator generates: one descriptor carrying two limit ids and a counter value,
// two CEL limits (one with a CEL variable), memory store, 100,000 clients.
func BenchmarkEvaluatorKuadrant(b *testing.B) {
	e, err := NewEvaluator([]Limit{
		{Name: "global", Namespace: "toystore/toystore", MaxValue: 1 << 31, Seconds: 60, Conditions: []string{`descriptors[0]["limit.global__53f76b2d"] == "1"`}},
		{Name: "per-ip", Namespace: "toystore/toystore", MaxValue: 1 << 31, Seconds: 10, Conditions: []string{`descriptors[0]["limit.per_ip__815c57de"] == "1"`}, Variables: []string{`descriptors[0]["source.remote_address"]`}},
	}, counter.NewMemoryStore(counter.MemoryOptions{}))
	if err != nil {
		b.Fatal(err)
	}
	keys := benchKeyList()
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := goroutineOffset.Add(7919)
		var resp limit.Result
		req := rlsmsg.Request{Domain: "toystore/toystore", Descriptors: []rlsmsg.Descriptor{
			{Entries: []rlsmsg.Entry{{Key: "limit.global__53f76b2d", Value: "1"}, {Key: "limit.per_ip__815c57de", Value: "1"}, {Key: "source.remote_address", Value: ""}}},
		}}
		ctx := context.Background()
		for pb.Next() {
			i++
			req.Descriptors[0].Entries[2].Value = keys[i%benchKeys]
			if err := e.Evaluate(ctx, time.Now(), &req, &resp); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
