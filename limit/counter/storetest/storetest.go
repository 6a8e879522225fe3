// Package storetest checks that an implementation of counter.Store answers
// exactly as counter.Policy.Decide does and honours the Store contract: all or
// nothing batches, repeated keys, large batches, checks, exactness under
// concurrency, concurrent batches decided as if one at a time and errors for
// invalid input. The memory store runs it in this package's tests; another
// store (limit/redis) runs it from its own:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) counter.Store { return newTestStore(t) })
//	}
//
// Every subtest asks newStore for a fresh store and uses keys unique to the
// subtest, so a store shared between runs does not disturb it.
//
// The instants are synthetic (from 2023-11-14, advancing much faster than
// real time, sometimes stepping up to 2 s back), and a stored counter must
// answer for any of them exactly as its stored state does. A store that
// expires counters on its own clock (Redis TTLs) should therefore keep them
// a margin past Decision.ResetAfter; a second or more is plenty here and is
// wise anyway against clock skew between clients and server.
package storetest

import (
	"context"
	"fmt"
	"iter"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/limit/counter"
)

// t0 is a whole day (UTC): the windows used here all start at it.
var t0 = time.Unix(1_699_920_000, 0)

var policies = []counter.Policy{
	{Algorithm: counter.AlgorithmFixedWindow, Max: 7, Window: 3 * time.Second},
	{Algorithm: counter.AlgorithmSlidingWindow, Max: 7, Window: 3 * time.Second},
	{Algorithm: counter.AlgorithmSlidingWindow, Max: 7, Window: 3 * time.Second, Weighted: true, Weight: 50},
	{Algorithm: counter.AlgorithmSlidingWindow, Max: 12, Window: 500 * time.Millisecond, Weighted: true, Weight: 100},
	{Algorithm: counter.AlgorithmTokenBucket, Max: 7, Window: 3 * time.Second},
	{Algorithm: counter.AlgorithmGCRA, Max: 7, Window: 3 * time.Second},
	{Algorithm: counter.AlgorithmFixedWindow, Max: 0, Window: time.Second},
	{Algorithm: counter.AlgorithmFixedWindow, Max: 7, Window: 3 * time.Second, FirstHit: true},
	{Algorithm: counter.AlgorithmFixedWindow, Max: 3, Window: 700 * time.Millisecond, FirstHit: true},
}

// Run runs the conformance tests against stores made by newStore.
func Run(t *testing.T, newStore func(t *testing.T) counter.Store) {
	s := &suite{newStore: newStore, prefix: fmt.Sprintf("storetest-%d-", rand.Uint64())}
	t.Run("matches Decide", s.matchesDecide)
	t.Run("batch is all or nothing", s.allOrNothing)
	t.Run("batch repeats a key", s.repeatedKey)
	t.Run("large batches", s.largeBatches)
	t.Run("check consumes nothing", s.checkConsumesNothing)
	t.Run("changed max keeps counting", s.changedMax)
	t.Run("exact under concurrency", s.exactUnderConcurrency)
	t.Run("concurrent batches one at a time", s.concurrentBatches)
	t.Run("errors", s.invalidInput)
}

// suite is what Run's subtests share: the store maker and the prefix of
// the keys of this run.
type suite struct {
	newStore func(t *testing.T) counter.Store
	prefix   string
}

// key returns the key name of the test t, unique to this run.
func (s *suite) key(t *testing.T, name string) string { return s.prefix + t.Name() + "/" + name }

// matchesDecide checks, for each policy, random steps against
// Policy.Decide.
func (s *suite) matchesDecide(t *testing.T) {
	for i, p := range policies {
		t.Run(fmt.Sprintf("%d-%s", i, p.Algorithm), func(t *testing.T) {
			s.matchPolicy(t, uint64(i), p)
		})
	}
}

// matchPolicy checks 2,000 random steps under p, from the random seed
// seed, against Policy.Decide.
func (s *suite) matchPolicy(t *testing.T, seed uint64, p counter.Policy) {
	store := s.newStore(t)
	k := s.key(t, "k")
	r := rand.New(rand.NewPCG(seed, 42))
	var st counter.State
	for step, now := range walk(r, 2000, 300_000) {
		at := now
		if r.IntN(5) == 0 { // a stale instant
			at = now.Add(-time.Duration(r.IntN(2_000_000)) * time.Microsecond)
		}
		st = decideStep(t, store, step, counter.Update{Key: k, Policy: p, Cost: uint64(r.IntN(3))}, st, at, "Policy.Decide")
	}
}

// walk yields steps instants from t0 on, each up to maxUs microseconds (drawn
// from r) after the one before.
func walk(r *rand.Rand, steps, maxUs int) iter.Seq2[int, time.Time] {
	return func(yield func(int, time.Time) bool) {
		now := t0
		for step := range steps {
			now = now.Add(time.Duration(r.IntN(maxUs)) * time.Microsecond)
			if !yield(step, now) {
				return
			}
		}
	}
}

// decideStep applies u at at to the store and to the model state st, fails t
// when the store decides otherwise than Policy.Decide (model names what st
// has been through), and returns the model's next state.
func decideStep(t *testing.T, store counter.Store, step int, u counter.Update, st counter.State, at time.Time, model string) counter.State {
	t.Helper()
	st, want := u.Policy.Decide(st, at, u.Cost)
	got := make([]counter.Decision, 1)
	if err := store.Update(context.Background(), at, []counter.Update{u}, got); err != nil {
		t.Fatalf("step %d: Update: %v", step, err)
	}
	if got[0] != want {
		t.Fatalf("step %d: Update(t=%d, cost=%d) = %+v, want %+v (%s)", step, at.UnixMicro(), u.Cost, got[0], want, model)
	}
	return st
}

// allOrNothing checks that a batch with an update denied consumes nothing.
func (s *suite) allOrNothing(t *testing.T) {
	store := s.newStore(t)
	wide := counter.Policy{Max: 10, Window: 10 * time.Second}
	narrow := counter.Policy{Max: 1, Window: 10 * time.Second}
	batch := []counter.Update{{Key: s.key(t, "wide"), Policy: wide, Cost: 1}, {Key: s.key(t, "narrow"), Policy: narrow, Cost: 1}}
	expect(t, store, t0, batch, []counter.Decision{
		{Allowed: true, Used: 1, Remaining: 9, ResetAfter: 10 * time.Second},
		{Allowed: true, Used: 1, Remaining: 0, ResetAfter: 10 * time.Second},
	})
	// narrow is full: nothing is consumed and wide is described as a check.
	expect(t, store, t0.Add(time.Second), batch, []counter.Decision{
		{Allowed: true, Used: 1, Remaining: 9, ResetAfter: 9 * time.Second},
		{Used: 2, Remaining: 0, ResetAfter: 9 * time.Second, RetryAfter: 9 * time.Second},
	})
	expect(t, store, t0.Add(2*time.Second), batch[:1], []counter.Decision{
		{Allowed: true, Used: 2, Remaining: 8, ResetAfter: 8 * time.Second},
	})
}

// repeatedKey checks that the updates of a key repeated in a batch apply
// in turn.
func (s *suite) repeatedKey(t *testing.T) {
	store := s.newStore(t)
	p := counter.Policy{Algorithm: counter.AlgorithmTokenBucket, Max: 3, Window: 3 * time.Second}
	k := s.key(t, "k")
	batch := []counter.Update{{Key: k, Policy: p, Cost: 1}, {Key: k, Policy: p, Cost: 1}, {Key: k, Policy: p, Cost: 0}}
	expect(t, store, t0, batch, []counter.Decision{
		{Allowed: true, Used: 1, Remaining: 2, ResetAfter: time.Second},
		{Allowed: true, Used: 2, Remaining: 1, ResetAfter: 2 * time.Second},
		{Allowed: true, Used: 2, Remaining: 1, ResetAfter: 2 * time.Second},
	})
	expect(t, store, t0, batch[:2], []counter.Decision{
		{Allowed: true, Used: 2, Remaining: 1, ResetAfter: 2 * time.Second},
		{Used: 4, Remaining: 0, ResetAfter: 3 * time.Second, RetryAfter: time.Second},
	})
	expect(t, store, t0, batch[2:], []counter.Decision{
		{Allowed: true, Used: 2, Remaining: 1, ResetAfter: 2 * time.Second},
	})
}

// checkConsumesNothing checks that an update of cost 0 consumes nothing,
// that a check on a full counter is allowed (only going over is over) and
// does not reject its batch, and that a check on a counter holding more
// than a lowered max is over.
func (s *suite) checkConsumesNothing(t *testing.T) {
	store := s.newStore(t)
	p := counter.Policy{Max: 1, Window: time.Minute}
	check := []counter.Update{{Key: s.key(t, "k"), Policy: p, Cost: 0}}
	hit := []counter.Update{{Key: s.key(t, "k"), Policy: p, Cost: 1}}
	expect(t, store, t0, check, []counter.Decision{{Allowed: true, Remaining: 1, ResetAfter: time.Minute}})
	expect(t, store, t0, check, []counter.Decision{{Allowed: true, Remaining: 1, ResetAfter: time.Minute}})
	expect(t, store, t0, hit, []counter.Decision{{Allowed: true, Used: 1, Remaining: 0, ResetAfter: time.Minute}})
	expect(t, store, t0, check, []counter.Decision{{Allowed: true, Used: 1, Remaining: 0, ResetAfter: time.Minute}})
	// The full counter's check does not reject the batch: the other hit
	// is consumed.
	other := counter.Update{Key: s.key(t, "other"), Policy: counter.Policy{Max: 2, Window: time.Minute}, Cost: 1}
	batch := []counter.Update{check[0], other}
	expect(t, store, t0, batch, []counter.Decision{{Allowed: true, Used: 1, Remaining: 0, ResetAfter: time.Minute}, {Allowed: true, Used: 1, Remaining: 1, ResetAfter: time.Minute}})
	expect(t, store, t0, batch[1:], []counter.Decision{{Allowed: true, Used: 2, Remaining: 0, ResetAfter: time.Minute}})

	// A limit lowered on the same key: the counter holds more than the new
	// max, and a check is over, for each algorithm but the token bucket
	// (which never lacks more than its capacity).
	for _, alg := range []counter.Algorithm{counter.AlgorithmFixedWindow, counter.AlgorithmSlidingWindow, counter.AlgorithmTokenBucket, counter.AlgorithmGCRA} {
		high := counter.Policy{Algorithm: alg, Max: 3, Window: 10 * time.Second}
		low := counter.Policy{Algorithm: alg, Max: 1, Window: 5 * time.Second}
		k := s.key(t, "lowered-"+alg.String())
		fill := []counter.Update{{Key: k, Policy: high, Cost: 3}}
		got := make([]counter.Decision, 1)
		if err := store.Update(context.Background(), t0, fill, got); err != nil || !got[0].Allowed {
			t.Fatalf("%s: filling the counter: %+v, %v", alg, got[0], err)
		}
		var want counter.Decision
		var st counter.State
		st, _ = high.Decide(st, t0, 3)
		_, want = low.Decide(st, t0, 0)
		if want.Allowed != (alg == counter.AlgorithmTokenBucket) {
			t.Fatalf("%s: Policy.Decide's check over a lowered max = %+v", alg, want)
		}
		expect(t, store, t0, []counter.Update{{Key: k, Policy: low, Cost: 0}}, []counter.Decision{want})
	}
}

// changedMax checks, for each algorithm, that a counter written under
// one Max is read under another (a reload changing a limit's Max keeps its
// counter key) for as long as its state matters under the new Max, not
// only under the Max that wrote it: 4 hits under Max 10 per 10 s, then, 5
// s later, 4,096 hits on other keys (a store that forgets expired counters
// while writing has swept by then) and 5 hits under Max 5, each decided as
// Policy.Decide decides over the kept state (the token bucket, 4 tokens
// missing, 2 of them refilled at the new rate, admits 3).
func (s *suite) changedMax(t *testing.T) {
	ctx := context.Background()
	for _, alg := range []counter.Algorithm{counter.AlgorithmFixedWindow, counter.AlgorithmSlidingWindow, counter.AlgorithmTokenBucket, counter.AlgorithmGCRA} {
		store := s.newStore(t) // its clock starts at t0 again
		high := counter.Policy{Algorithm: alg, Max: 10, Window: 10 * time.Second}
		low := high
		low.Max = 5
		k := s.key(t, "changed-"+alg.String())
		var st counter.State
		expectSteps := func(at time.Time, p counter.Policy, n int) {
			t.Helper()
			for step := range n {
				var want counter.Decision
				st, want = p.Decide(st, at, 1)
				expect(t, store, at, []counter.Update{{Key: k, Policy: p, Cost: 1}}, []counter.Decision{want})
				if t.Failed() {
					t.Fatalf("%s: hit %d at t0+%v under Max %d", alg, step, at.Sub(t0), p.Max)
				}
			}
		}
		expectSteps(t0, high, 4)
		at := t0.Add(5 * time.Second)
		others := make([]counter.Update, 4096)
		for i := range others {
			others[i] = counter.Update{Key: s.key(t, fmt.Sprintf("changed-%s-other%d", alg, i)), Policy: high, Cost: 1}
		}
		if err := store.Update(ctx, at, others, make([]counter.Decision, len(others))); err != nil {
			t.Fatalf("%s: hits on other keys: %v", alg, err)
		}
		expectSteps(at, low, 5)
	}
}

// exactUnderConcurrency checks that concurrent batches admit exactly up to
// the max.
func (s *suite) exactUnderConcurrency(t *testing.T) {
	// 8 goroutines x 2,500 requests against a fixed window of max 1,000,
	// each request also hitting a counter of its goroutine.
	ctx := context.Background()
	store := s.newStore(t)
	shared := counter.Policy{Max: 1000, Window: time.Minute}
	own := counter.Policy{Max: 100_000, Window: time.Minute}
	var admitted atomic.Int64
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ds := make([]counter.Decision, 2)
			batch := []counter.Update{{Key: s.key(t, fmt.Sprint("g", g)), Policy: own, Cost: 1}, {Key: s.key(t, "shared"), Policy: shared, Cost: 1}}
			for range 2500 {
				if err := store.Update(ctx, t0, batch, ds); err != nil {
					t.Error(err)
					return
				}
				if ds[0].Allowed && ds[1].Allowed {
					admitted.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if n := admitted.Load(); n != 1000 {
		t.Errorf("admitted %d, want exactly 1000", n)
	}
}

// invalidInput checks that invalid input is an error and consumes nothing.
func (s *suite) invalidInput(t *testing.T) {
	ctx := context.Background()
	store := s.newStore(t)
	ok := counter.Policy{Max: 1, Window: time.Second}
	tests := []struct {
		name    string
		updates []counter.Update
		n       int
	}{
		{"fewer decisions than updates", []counter.Update{{Key: s.key(t, "a"), Policy: ok, Cost: 1}}, 0},
		{"window under 1µs", []counter.Update{{Key: s.key(t, "a"), Policy: counter.Policy{Max: 1}, Cost: 1}}, 1},
		{"max above MaxPolicyValue", []counter.Update{{Key: s.key(t, "a"), Policy: counter.Policy{Max: counter.MaxPolicyValue + 1, Window: time.Second}, Cost: 1}}, 1},
		{"weight above 100", []counter.Update{{Key: s.key(t, "a"), Policy: counter.Policy{Algorithm: counter.AlgorithmSlidingWindow, Max: 1, Window: time.Second, Weighted: true, Weight: 101}, Cost: 1}}, 1},
	}
	for _, tc := range tests {
		if err := store.Update(ctx, t0, tc.updates, make([]counter.Decision, tc.n)); err == nil {
			t.Errorf("Update(%s) = nil, want an error", tc.name)
		}
	}
	// Nothing was consumed by the failed updates.
	expect(t, store, t0, []counter.Update{{Key: s.key(t, "a"), Policy: ok, Cost: 1}}, []counter.Decision{
		{Allowed: true, Used: 1, Remaining: 0, ResetAfter: time.Second},
	})
}

// expect applies a batch and compares the decisions.
func expect(t *testing.T, store counter.Store, now time.Time, batch []counter.Update, want []counter.Decision) {
	t.Helper()
	got := make([]counter.Decision, len(batch))
	if err := store.Update(context.Background(), now, batch, got); err != nil {
		t.Fatalf("Update at t0+%v: %v", now.Sub(t0), err)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Update at t0+%v: decision %d = %+v, want %+v", now.Sub(t0), i, got[i], want[i])
		}
	}
}
