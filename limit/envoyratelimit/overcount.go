package envoyratelimit

import (
	"context"
	"time"

	"github.com/rlpkit/rlpkit/limit/counter"
)

// countOver adds, after a batch with rejected updates, the hits of every
// fixed-window counter that was over (the rejected updates with a cost),
// as envoyproxy/ratelimit with STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT=true
// increments the counters that go over: one more Store.Update, of the same
// keys and windows with the largest capacity a policy has, so that it
// cannot be refused (short of 2^32-1 hits in one window). The counters that
// had room are not in it. Counters of other algorithms are not counted
// (their state is not a count of hits), nor are any with KeysReference,
// whose store (limit/redis/refcount) has counted them already. A failure
// does not change the answer: it is reported to Options.OnCountOverError.
func (e *Evaluator) countOver(ctx context.Context, now time.Time, sc *scratch, updates []counter.Update, decisions []counter.Decision) {
	if e.o.Keys == KeysReference {
		return
	}
	over := sc.overUpdates[:0]
	for k := range decisions {
		if u := updates[k]; countsOver(&u, &decisions[k]) {
			u.Policy.Max = counter.MaxPolicyValue
			over = append(over, u)
		}
	}
	sc.overUpdates = over
	if len(over) == 0 {
		return
	}
	ds := grow(sc.overDecisions, len(over))
	sc.overDecisions = ds
	if err := e.o.Store.Update(ctx, now, over, ds); err != nil && e.o.OnCountOverError != nil {
		e.o.OnCountOverError(err)
	}
}

// countsOver reports whether u, decided d, is a rejected hit that
// countOver adds to its counter.
func countsOver(u *counter.Update, d *counter.Decision) bool {
	return !d.Allowed && u.Cost > 0 && u.Policy.Algorithm == counter.AlgorithmFixedWindow && !u.Policy.FirstHit
}
