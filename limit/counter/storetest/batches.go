package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/limit/counter"
)

// largeBatches checks random batches of 3 to 300 updates, many repeating
// a key within the batch, against a model that applies Policy.Decide in
// turn, all or nothing: a store that tells a large batch's keys apart
// otherwise than a small one's (a map rather than comparisons) must answer
// the same. Half the batches are of fixed windows only (what an
// approximate store decides on its own), over keys of their own; the
// others mix every algorithm and always hold one that is not a fixed
// window.
func (s *suite) largeBatches(t *testing.T) {
	ctx := context.Background()
	store := s.newStore(t)
	r := rand.New(rand.NewPCG(25, 2))
	var fixedPolicies, otherPolicies []counter.Policy
	for _, p := range policies {
		if p.Algorithm == counter.AlgorithmFixedWindow {
			fixedPolicies = append(fixedPolicies, p)
		} else {
			otherPolicies = append(otherPolicies, p)
		}
	}
	fixed, mixed := s.keyPool(t, "fixed", fixedPolicies), s.keyPool(t, "mixed", append(otherPolicies, fixedPolicies...))
	model := map[string]counter.State{}
	now := t0
	var large [2]int // batches above maxSmall updates: rejected, admitted
	for round := range 60 {
		now = now.Add(time.Duration(r.IntN(600_000)) * time.Microsecond)
		n := []int{3, 17, 64, 300}[round%4]
		keys, onlyFixed := mixed, round%8 >= 4
		if onlyFixed {
			keys = fixed
		}
		batch := make([]counter.Update, n)
		for i := range batch {
			k := r.IntN(min(len(keys), 2*n)) // small batches repeat keys too
			if i == 0 && !onlyFixed {
				k = 0 // not a fixed window
			}
			batch[i] = counter.Update{Key: keys[k].Key, Policy: keys[k].Policy, Cost: uint64(r.IntN(3))}
		}
		want, admitted := apply(model, now, batch)
		if n > maxSmall {
			large[boolIndex(admitted)]++
		}
		got := make([]counter.Decision, n)
		if err := store.Update(ctx, now, batch, got); err != nil {
			t.Fatalf("round %d: Update of %d: %v", round, n, err)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("round %d (%d updates, admitted %v): decision %d (key %q, cost %d) = %+v, want %+v",
					round, n, admitted, i, batch[i].Key, batch[i].Cost, got[i], want[i])
			}
		}
	}
	if large[0] == 0 || large[1] == 0 {
		t.Errorf("of the batches of more than %d updates, %d were rejected and %d admitted: want both", maxSmall, large[0], large[1])
	}
}

// keyPool returns 400 keys named after prefix, with policies cycling
// through pols, their maxima from 4 to 28 (no maximum of 0: every batch
// holding one would be rejected).
func (s *suite) keyPool(t *testing.T, prefix string, pols []counter.Policy) []counter.Update {
	keys := make([]counter.Update, 400)
	for i := range keys {
		keys[i] = counter.Update{Key: s.key(t, fmt.Sprint(prefix, i)), Policy: pols[i%len(pols)]}
		keys[i].Policy.Max = 4 + uint64(i%7)*4
	}
	return keys
}

// apply decides batch at now over model as a Store must: each update sees
// the ones before it; when all are admitted the keys that consume keep
// their new states, else nothing changes and the admitted updates are
// described as checks.
func apply(model map[string]counter.State, now time.Time, batch []counter.Update) ([]counter.Decision, bool) {
	work := map[string]counter.State{}
	consumes := map[string]bool{}
	want := make([]counter.Decision, len(batch))
	admitted := true
	for i, u := range batch {
		st, ok := work[u.Key]
		if !ok {
			st = model[u.Key]
		}
		work[u.Key], want[i] = u.Policy.Decide(st, now, u.Cost)
		consumes[u.Key] = consumes[u.Key] || u.Cost > 0
		admitted = admitted && want[i].Allowed
	}
	if admitted {
		for k, st := range work {
			if consumes[k] {
				model[k] = st
			}
		}
		return want, true
	}
	for i, u := range batch {
		if want[i].Allowed {
			_, want[i] = u.Policy.Decide(model[u.Key], now, 0)
		}
	}
	return want, false
}

// maxSmall is a batch size below which stores tell keys apart without
// allocating: batches above it take another path.
const maxSmall = 16

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}
