package storetest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/limit/counter"
)

// AdjustStore is a store that also charges hits after the fact.
type AdjustStore interface {
	counter.Store
	counter.Adjuster
}

// RunAdjust checks a store's Adjust: random Updates and Adjusts of either
// sign on one counter, answered exactly as Policy.Decide and Policy.Adjust
// over the same states; gives back never taking a counter below zero nor
// from a window that began after ReleaseBefore; exactness under concurrent
// reservations and settlements; and errors for what Adjust refuses. The
// memory store runs it in this package's tests, limit/redis from its own.
func RunAdjust(t *testing.T, newStore func(t *testing.T) AdjustStore) {
	s := &suite{prefix: fmt.Sprintf("storetest-adjust-%d-", rand.Uint64())}
	t.Run("matches Decide and Adjust", func(t *testing.T) {
		for i, p := range policies {
			if p.Algorithm != counter.AlgorithmFixedWindow && p.Algorithm != counter.AlgorithmSlidingWindow {
				continue
			}
			t.Run(fmt.Sprintf("%d-%s", i, p.Algorithm), func(t *testing.T) { s.adjustMatches(t, newStore(t), uint64(i), p) })
		}
	})
	t.Run("release bounded", func(t *testing.T) { s.adjustBounded(t, newStore(t)) })
	t.Run("concurrent settlements", func(t *testing.T) { s.adjustConcurrent(t, newStore(t)) })
	t.Run("errors", func(t *testing.T) { s.adjustErrors(t, newStore(t)) })
}

// adjustMatches interleaves Updates and Adjusts on one counter and checks
// every decision against the model.
func (s *suite) adjustMatches(t *testing.T, store AdjustStore, seed uint64, p counter.Policy) {
	ctx := context.Background()
	k := s.key(t, "k")
	r := rand.New(rand.NewPCG(seed, 7))
	var st counter.State
	for step, now := range walk(r, 1500, 200_000) {
		if r.IntN(2) == 0 {
			delta := int64(r.IntN(9)) - 4
			var rb time.Time
			if r.IntN(3) == 0 {
				rb = now.Add(-time.Duration(r.IntN(1_000_000)) * time.Microsecond)
			}
			var err error
			if st, _, err = p.Adjust(st, now, delta, rb); err != nil {
				t.Fatal(err)
			}
			if err := store.Adjust(ctx, now, []counter.Adjustment{{Key: k, Policy: p, Delta: delta, ReleaseBefore: rb}}); err != nil {
				t.Fatalf("step %d: Adjust: %v", step, err)
			}
			continue
		}
		st = decideStep(t, store, step, counter.Update{Key: k, Policy: p, Cost: uint64(r.IntN(3))}, st, now, "Policy.Decide after Policy.Adjust")
	}
}

// adjustBounded checks the two bounds of a give-back: never below zero,
// never from a window that began after ReleaseBefore; and that an add
// passes Max.
func (s *suite) adjustBounded(t *testing.T, store AdjustStore) {
	ctx := context.Background()
	p := counter.Policy{Max: 10, Window: 10 * time.Second}
	k := s.key(t, "k")
	adjust := func(at time.Time, delta int64, rb time.Time) {
		t.Helper()
		if err := store.Adjust(ctx, at, []counter.Adjustment{{Key: k, Policy: p, Delta: delta, ReleaseBefore: rb}}); err != nil {
			t.Fatal(err)
		}
	}
	adjust(t0, 15, time.Time{}) // past Max, undecided
	expect(t, store, t0.Add(time.Second), []counter.Update{{Key: k, Policy: p}}, []counter.Decision{
		{Used: 15, Remaining: 0, ResetAfter: 9 * time.Second, RetryAfter: 9 * time.Second},
	})
	adjust(t0.Add(time.Second), -100, time.Time{}) // to zero, not below
	expect(t, store, t0.Add(time.Second), []counter.Update{{Key: k, Policy: p, Cost: 10}}, []counter.Decision{
		{Allowed: true, Used: 10, Remaining: 0, ResetAfter: 9 * time.Second},
	})
	// The window began at t0: a give-back bounded before it gives nothing.
	adjust(t0.Add(2*time.Second), -4, t0.Add(-time.Millisecond))
	adjust(t0.Add(2*time.Second), -3, t0)
	expect(t, store, t0.Add(2*time.Second), []counter.Update{{Key: k, Policy: p}}, []counter.Decision{
		{Allowed: true, Used: 7, Remaining: 3, ResetAfter: 8 * time.Second},
	})
	// A give-back after its window ended gives nothing from the next one.
	expect(t, store, t0.Add(11*time.Second), []counter.Update{{Key: k, Policy: p, Cost: 2}}, []counter.Decision{
		{Allowed: true, Used: 2, Remaining: 8, ResetAfter: 9 * time.Second},
	})
	adjust(t0.Add(12*time.Second), -5, t0.Add(9*time.Second))
	expect(t, store, t0.Add(12*time.Second), []counter.Update{{Key: k, Policy: p}}, []counter.Decision{
		{Allowed: true, Used: 2, Remaining: 8, ResetAfter: 8 * time.Second},
	})
}

// adjustConcurrent runs 16 goroutines that each reserve 10 hits (an Update)
// and settle them to 3 (an Adjust of -7) against a max of 100, and checks
// that the counter ends at exactly 3 per admitted reservation.
func (s *suite) adjustConcurrent(t *testing.T, store AdjustStore) {
	ctx := context.Background()
	p := counter.Policy{Max: 100, Window: time.Hour}
	k := s.key(t, "k")
	var mu sync.Mutex
	admitted := 0
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ds := make([]counter.Decision, 1)
			for range 20 {
				if err := store.Update(ctx, t0, []counter.Update{{Key: k, Policy: p, Cost: 10}}, ds); err != nil {
					t.Error(err)
					return
				}
				if !ds[0].Allowed {
					continue
				}
				mu.Lock()
				admitted++
				mu.Unlock()
				if err := store.Adjust(ctx, t0, []counter.Adjustment{{Key: k, Policy: p, Delta: -7}}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if admitted < 30 || admitted > 320 {
		t.Fatalf("admitted %d reservations, want at least 30 (each settles to 3 of 100)", admitted)
	}
	used := min(uint64(3*admitted), 100)
	expect(t, store, t0, []counter.Update{{Key: k, Policy: p}}, []counter.Decision{
		{Allowed: used <= 100, Used: float64(3 * admitted), Remaining: 100 - used, ResetAfter: time.Hour},
	})
}

// adjustErrors checks that Adjust refuses the token bucket, GCRA and an
// invalid policy.
func (s *suite) adjustErrors(t *testing.T, store AdjustStore) {
	ctx := context.Background()
	for _, p := range []counter.Policy{
		{Algorithm: counter.AlgorithmTokenBucket, Max: 7, Window: time.Second},
		{Algorithm: counter.AlgorithmGCRA, Max: 7, Window: time.Second},
	} {
		err := store.Adjust(ctx, t0, []counter.Adjustment{{Key: s.key(t, "a"), Policy: p, Delta: 1}})
		if !errors.Is(err, counter.ErrAdjustAlgorithm) {
			t.Errorf("Adjust(%s) = %v, want ErrAdjustAlgorithm", p.Algorithm, err)
		}
	}
	if err := store.Adjust(ctx, t0, []counter.Adjustment{{Key: s.key(t, "a"), Policy: counter.Policy{Max: 1}, Delta: 1}}); err == nil {
		t.Error("Adjust with a window under 1µs = nil, want an error")
	}
}
