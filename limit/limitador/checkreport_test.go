package limitador

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// TestProbeAndCharge checks Probe (a check as if adding hits, consuming
// nothing) and Charge (hits added without deciding, either sign) on the
// counters Evaluate would find.
func TestProbeAndCharge(t *testing.T) {
	e := newEvaluator(t, toystore)
	ctx := context.Background()
	req := rlsmsg.Request{Domain: "toystore", Descriptors: []rlsmsg.Descriptor{{Entries: entries("method", "GET", "user", "alice")}}}
	probe := func(hits uint64) rlsmsg.Code {
		t.Helper()
		var res limit.Result
		if err := e.Probe(ctx, t0, &req, &res, hits); err != nil {
			t.Fatal(err)
		}
		for _, c := range res.Counters {
			if c.Cost != 0 {
				t.Errorf("Probe counted %+v with a cost", c)
			}
		}
		return res.OverallCode
	}
	charge := func(delta int64) {
		t.Helper()
		var res limit.Result
		if err := e.Charge(ctx, t0, &req, &res, delta, time.Time{}); err != nil {
			t.Fatal(err)
		}
		if len(res.Counters) != 2 {
			t.Errorf("Charge counted %d counters, want get-per-user and all", len(res.Counters))
		}
	}
	if got := probe(2); got != rlsmsg.CodeOK { // 0 + 2 <= 2
		t.Errorf("probe of 2 on an empty counter: %v", got)
	}
	if got := probe(3); got != rlsmsg.CodeOverLimit {
		t.Errorf("probe of 3 against a max of 2: %v", got)
	}
	charge(2)
	if got := probe(1); got != rlsmsg.CodeOverLimit { // 2 + 1 > 2
		t.Errorf("probe of 1 at the max: %v", got)
	}
	charge(5) // past both maxima, undecided
	charge(-6)
	if got := probe(1); got != rlsmsg.CodeOK { // 1 of 2
		t.Errorf("probe of 1 after giving back: %v", got)
	}
	if got := probe(2); got != rlsmsg.CodeOverLimit {
		t.Errorf("probe of 2 after giving back: %v", got)
	}
}

// TestChargeNeedsAdjuster checks that Charge over a store without Adjust
// is an error, and not a store failure.
func TestChargeNeedsAdjuster(t *testing.T) {
	e, err := NewEvaluator(toystore, updateOnly{counter.NewMemoryStore(counter.MemoryOptions{})})
	if err != nil {
		t.Fatal(err)
	}
	req := rlsmsg.Request{Domain: "toystore", Descriptors: []rlsmsg.Descriptor{{Entries: entries("method", "GET", "user", "alice")}}}
	err = e.Charge(context.Background(), t0, &req, new(limit.Result), 1, time.Time{})
	if err == nil || errors.As(err, new(*limit.StoreError)) {
		t.Errorf("Charge without an Adjuster = %v, want an error that is not a store failure", err)
	}
}

// updateOnly hides every method of a store but Update.
type updateOnly struct{ s counter.Store }

func (u updateOnly) Update(ctx context.Context, now time.Time, us []counter.Update, ds []counter.Decision) error {
	return u.s.Update(ctx, now, us, ds)
}
