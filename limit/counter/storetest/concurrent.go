package storetest

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/limit/counter"
)

// span is what one admitted request did to one key: the count it left
// (its last decision's Used) and the cost it added.
type span struct{ end, cost float64 }

// concurrentBatches checks that concurrent batches over shared keys are
// decided as if one at a time, in some order, each all or nothing (a store
// that decides several callers' batches together must keep that): on each
// key, the counts the admitted batches left, less their costs, tile the
// counter from 0 to its final count without gap or overlap, and a
// rejected batch adds nothing.
func (s *suite) concurrentBatches(t *testing.T) {
	ctx := context.Background()
	store := s.newStore(t)
	pols := []counter.Policy{
		{Max: 300, Window: time.Minute},
		{Max: 250, Window: time.Minute, FirstHit: true},
	}
	keys := make([]string, 4)
	for k := range keys {
		keys[k] = s.key(t, fmt.Sprint("k", k))
	}
	var mu sync.Mutex
	spans := make([][]span, len(keys))
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 3))
			for range 200 {
				batch := make([]counter.Update, 1+rng.IntN(3))
				idx := make([]int, len(batch))
				for i := range batch {
					idx[i] = rng.IntN(len(keys))
					batch[i] = counter.Update{Key: keys[idx[i]], Policy: pols[idx[i]%2], Cost: 1 + uint64(rng.IntN(3))}
				}
				ds := make([]counter.Decision, len(batch))
				if err := store.Update(ctx, t0, batch, ds); err != nil {
					t.Error(err)
					return
				}
				if !allAllowed(ds) {
					continue
				}
				mu.Lock()
				for k := range keys {
					if sp, ok := spanOf(k, idx, batch, ds); ok {
						spans[k] = append(spans[k], sp)
					}
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	for k, key := range keys {
		ds := make([]counter.Decision, 1)
		if err := store.Update(ctx, t0, []counter.Update{{Key: key, Policy: pols[k%2]}}, ds); err != nil {
			t.Fatal(err)
		}
		slices.SortFunc(spans[k], func(a, b span) int { return cmp.Compare(a.end, b.end) })
		at := 0.0
		for _, sp := range spans[k] {
			if sp.end-sp.cost != at {
				t.Fatalf("key %d: an admitted batch took it from %v to %v, but the batch before left %v (batches %+v)", k, sp.end-sp.cost, sp.end, at, spans[k])
			}
			at = sp.end
		}
		if ds[0].Used != at {
			t.Errorf("key %d holds %v, but its admitted batches added up to %v", k, ds[0].Used, at)
		}
	}
}

// spanOf returns what the admitted batch did to key k, if it added to it.
func spanOf(k int, idx []int, batch []counter.Update, ds []counter.Decision) (span, bool) {
	var sp span
	seen := false
	for i := range batch {
		if idx[i] == k {
			sp.cost += float64(batch[i].Cost)
			sp.end = ds[i].Used
			seen = true
		}
	}
	return sp, seen
}

func allAllowed(ds []counter.Decision) bool {
	for _, d := range ds {
		if !d.Allowed {
			return false
		}
	}
	return true
}
