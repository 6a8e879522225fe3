//go:build !race

// The race detector makes sync.Pool drop items at random, so allocation
// counts are only meaningful without it.

package limitador

import (
	"context"
	"testing"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

func TestEvaluatorAllocations(t *testing.T) {
	e := newEvaluator(t, []Limit{
		{Namespace: "d", MaxValue: 1 << 30, Seconds: 60, Conditions: []string{"method == 'GET'"}, Variables: []string{"user"}},
		{Namespace: "d", MaxValue: 1 << 30, Seconds: 1, Variables: []string{"user", "path"}},
	})
	req := rlsmsg.Request{Domain: "d", Descriptors: []rlsmsg.Descriptor{
		{Entries: entries("method", "GET", "user", "bob", "path", "/toys")},
		{Entries: entries("user", "alice", "path", "/")},
	}}
	var resp limit.Result
	ctx := context.Background()
	e.Evaluate(ctx, t0, &req, &resp) // create the counters
	allocs := testing.AllocsPerRun(1000, func() {
		if err := e.Evaluate(ctx, t0, &req, &resp); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Evaluate allocates %v times per request, want 0", allocs)
	}
}
