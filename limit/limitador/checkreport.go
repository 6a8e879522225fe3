package limitador

import (
	"context"
	"errors"
	"time"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// errNoAdjuster is the error of Charge over a store that cannot charge
// after the fact.
var errNoAdjuster = errors.New("limit: the counter store cannot charge hits after the fact (counter.Adjuster)")

// opKind is what evaluate does with the counters it finds.
type opKind uint8

const (
	opUpdate opKind = iota // decide and consume, all or nothing (Evaluate)
	opProbe                // decide as if hits were added, consume nothing (Probe)
	opCharge               // add delta, no decision (Charge)
)

// operation is an opKind with its figures.
type operation struct {
	kind          opKind
	hits          uint64    // opProbe
	delta         int64     // opCharge
	releaseBefore time.Time // opCharge
}

// Probe decides req at now as if hits were added to every counter it
// applies to, consuming nothing: Limitador's CheckRateLimit, which is
// over when some counter's value plus hits (1 in Limitador) exceeds its
// max. Its counters are those Evaluate would find, hits_addend playing no
// part; resp holds Evaluate's statuses, each over when its counter has
// fewer than hits remaining, and Counters with cost 0.
func (e *Evaluator) Probe(ctx context.Context, now time.Time, req *rlsmsg.Request, resp *limit.Result, hits uint64) error {
	return e.evaluate(ctx, now, req, resp, operation{kind: opProbe, hits: hits})
}

// Charge adds delta hits to every counter req applies to, without deciding
// (counter.Adjuster.Adjust with ReleaseBefore): Limitador's Report with a
// positive delta, the settlement of a reservation with either sign. The
// store must implement counter.Adjuster. resp's overall code is OK and
// its statuses carry no limit; resp.Counters lists the counters with Cost
// |delta| and no decision. An error is a *limit.StoreError, or the
// evaluator's own for an invalid request.
func (e *Evaluator) Charge(ctx context.Context, now time.Time, req *rlsmsg.Request, resp *limit.Result, delta int64, releaseBefore time.Time) error {
	return e.evaluate(ctx, now, req, resp, operation{kind: opCharge, delta: delta, releaseBefore: releaseBefore})
}

// charge applies op's delta to the counters in sc.
func (e *Evaluator) charge(ctx context.Context, now time.Time, sc *scratch, resp *limit.Result, op operation) error {
	cost := uint64(op.delta)
	if op.delta < 0 {
		cost = uint64(-op.delta)
	}
	for j, u := range sc.updates {
		sc.adj = append(sc.adj, counter.Adjustment{Key: u.Key, Policy: u.Policy, Delta: op.delta, ReleaseBefore: op.releaseBefore})
		resp.Counters[j].Cost = cost
	}
	if err := e.store.(counter.Adjuster).Adjust(ctx, now, sc.adj); err != nil {
		return &limit.StoreError{Err: err}
	}
	return nil
}

// probed turns the decisions of checks into those of a probe of hits: a
// counter with fewer than hits remaining is over.
func probed(decs []counter.Decision, hits uint64) {
	for j := range decs {
		d := &decs[j]
		if d.Allowed && d.Remaining < hits {
			d.Allowed = false
			d.RetryAfter = d.ResetAfter
		}
	}
}
