package counter

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// TestFreshFromAnyMax checks freshFrom's promise: a state written under one
// policy decides as a fresh counter does, from freshFrom on, under every
// policy of its algorithm and window, whatever their Max, weight or
// fixed-window start, for checks and hits alike.
func TestFreshFromAnyMax(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 5))
	windows := []time.Duration{time.Microsecond, 7 * time.Microsecond, time.Second, 10 * time.Second, time.Hour, MaxWindow}
	for _, alg := range []Algorithm{AlgorithmFixedWindow, AlgorithmSlidingWindow, AlgorithmTokenBucket, AlgorithmGCRA} {
		t.Run(alg.String(), func(t *testing.T) {
			for range 3000 {
				w := windows[r.IntN(len(windows))]
				p := randomPolicy(r, alg, w)
				var s State
				now := time.Unix(1_699_920_000, 0).Add(time.Duration(r.Int64N(int64(time.Hour))))
				for range 1 + r.IntN(6) {
					now = now.Add(time.Duration(r.Int64N(int64(w/2 + 1))))
					s, _ = p.Decide(s, now, uint64(r.IntN(4)))
				}
				if s == (State{}) {
					continue
				}
				from := p.freshFrom(s)
				at := from + r.Int64N(3)
				q := randomPolicy(r, alg, w)
				for _, cost := range []uint64{0, 1, 2, q.Max, q.Max + 1} {
					_, got := q.Decide(s, time.UnixMicro(at), cost)
					_, want := q.Decide(State{}, time.UnixMicro(at), cost)
					if got != want {
						t.Fatalf("state %+v written under %+v, read at freshFrom+%d under %+v, cost %d: %+v, want a fresh counter's %+v",
							s, p, at-from, q, cost, got, want)
					}
				}
			}
		})
	}
}

// randomPolicy returns a policy of alg and window w with a random Max
// (often small, sometimes 0 or the largest) and the other parameters.
func randomPolicy(r *rand.Rand, alg Algorithm, w time.Duration) Policy {
	maxes := []uint64{0, 1, 2, 3, 5, 10, 1000, MaxPolicyValue}
	p := Policy{Algorithm: alg, Window: w, Max: maxes[r.IntN(len(maxes))], FirstHit: r.IntN(2) == 0}
	if r.IntN(3) == 0 {
		p.Max = r.Uint64N(MaxPolicyValue + 1)
	}
	if alg == AlgorithmSlidingWindow && r.IntN(2) == 0 {
		p.Weighted, p.Weight = true, uint8(r.IntN(101))
	}
	return p
}

// TestMemoryStoreLoweredMax takes 4 of 10 tokens (10 per 10 s), lowers Max
// to 5 and, 4 s later, sweeps the store (as a write does once the sweep
// interval has passed): the counter is kept, since under the new Max it
// is not fresh before 8 s, and 5 hits admit 3, as deciding over the kept
// state does, not the 5 of a fresh bucket.
func TestMemoryStoreLoweredMax(t *testing.T) {
	t0 := time.Unix(1_699_920_000, 0)
	high := Policy{Algorithm: AlgorithmTokenBucket, Max: 10, Window: 10 * time.Second}
	low := high
	low.Max = 5
	for _, batch := range []bool{false, true} {
		t.Run(fmt.Sprint("batch ", batch), func(t *testing.T) {
			m := NewMemoryStore(MemoryOptions{})
			update := func(at time.Time, p Policy) Decision {
				t.Helper()
				u := Update{Key: "k", Policy: p, Cost: 1}
				if !batch {
					d, err := m.UpdateOne(at, u)
					if err != nil {
						t.Fatal(err)
					}
					return d
				}
				// the batch path: with another key's update
				ds := make([]Decision, 2)
				if err := m.Update(t.Context(), at, []Update{u, {Key: "other", Policy: Policy{Max: 100, Window: time.Hour}, Cost: 0}}, ds); err != nil {
					t.Fatal(err)
				}
				return ds[0]
			}
			var kept State
			for range 4 {
				kept, _ = high.Decide(kept, t0, 1)
				update(t0, high)
			}
			at := t0.Add(4 * time.Second)
			m.Sweep(at)
			if m.Len() != 1 {
				t.Errorf("the sweep at t0+4s left %d counters, want 1 (the bucket is not full again under Max 5)", m.Len())
			}
			admitted, want := 0, 0
			for range 5 {
				var d Decision
				kept, d = low.Decide(kept, at, 1)
				if d.Allowed {
					want++
				}
				if update(at, low).Allowed {
					admitted++
				}
			}
			if want != 3 || admitted != want {
				t.Errorf("5 hits at t0+4s under Max 5 admitted %d, want %d (Decide over the kept state: 3)", admitted, want)
			}
		})
	}
}
