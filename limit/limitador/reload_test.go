package limitador

import (
	"context"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// TestReloadLoweredMaxTokenBucket reloads a token bucket limit with a
// lower max_value over the same store, as a server reloading its limits
// file does: the limit keeps its counter (its identity is unchanged), and
// the counter lives as long as the new max needs it. 4 of 10 tokens are
// taken (10 per 10 s); 4 s later max_value is 5, the store has swept its
// expired counters, and 5 requests are answered as deciding over the kept
// state answers: 2 tokens of the 4 refilled at the new rate, 3 OK, then
// OVER_LIMIT.
func TestReloadLoweredMaxTokenBucket(t *testing.T) {
	store := counter.NewMemoryStore(counter.MemoryOptions{})
	lim := Limit{Namespace: "shop", Name: "per-user", MaxValue: 10, Seconds: 10, Variables: []string{"user"}, Algorithm: counter.AlgorithmTokenBucket}
	before, err := NewEvaluator([]Limit{lim}, store)
	if err != nil {
		t.Fatal(err)
	}
	lim.MaxValue = 5
	after, err := NewEvaluator([]Limit{lim}, store)
	if err != nil {
		t.Fatal(err)
	}
	req := rlsmsg.Request{Domain: "shop", Descriptors: []rlsmsg.Descriptor{{Entries: entries("user", "alice")}}}
	code := func(e *Evaluator, at time.Time) rlsmsg.Code {
		t.Helper()
		res := new(limit.Result)
		if err := e.Evaluate(context.Background(), at, &req, res); err != nil {
			t.Fatal(err)
		}
		return res.OverallCode
	}
	for i := range 4 {
		if got := code(before, t0); got != rlsmsg.CodeOK {
			t.Fatalf("request %d under max_value 10: %v, want OK", i, got)
		}
	}
	at := t0.Add(4 * time.Second)
	store.Sweep(at)
	want := []rlsmsg.Code{rlsmsg.CodeOK, rlsmsg.CodeOK, rlsmsg.CodeOK, rlsmsg.CodeOverLimit, rlsmsg.CodeOverLimit}
	for i, w := range want {
		if got := code(after, at); got != w {
			t.Errorf("request %d at t0+4s under max_value 5: %v, want %v", i, got, w)
		}
	}
}
