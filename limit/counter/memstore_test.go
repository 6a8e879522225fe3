package counter

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var ctx = context.Background()

func TestMemoryStoreMatchesDecide(t *testing.T) {
	for _, p := range allAlgorithms {
		t.Run(policyName(p), func(t *testing.T) {
			m := NewMemoryStore(MemoryOptions{})
			var s State
			now := t0
			for i := range 500 {
				now = now.Add(time.Duration(i%7) * 97 * ms)
				cost := uint64(i % 3)
				var want Decision
				s, want = p.Decide(s, now, cost)
				got, err := m.UpdateOne(now, Update{Key: "k", Policy: p, Cost: cost})
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("step %d: UpdateOne(cost=%d) mismatch (-Decide +store):\n%s", i, cost, diff)
				}
			}
		})
	}
}

func TestMemoryStoreBatchAllOrNothing(t *testing.T) {
	m := NewMemoryStore(MemoryOptions{})
	wide := Policy{Max: 10, Window: 10 * s1}
	narrow := Policy{Max: 1, Window: 10 * s1}
	ds := make([]Decision, 2)
	batch := []Update{{Key: "wide", Policy: wide, Cost: 1}, {Key: "narrow", Policy: narrow, Cost: 1}}

	if err := m.Update(ctx, t0, batch, ds); err != nil {
		t.Fatal(err)
	}
	want := []Decision{
		{Allowed: true, Used: 1, Remaining: 9, ResetAfter: 10 * s1},
		{Allowed: true, Used: 1, Remaining: 0, ResetAfter: 10 * s1},
	}
	if diff := cmp.Diff(want, ds); diff != "" {
		t.Fatalf("first batch mismatch (-want +got):\n%s", diff)
	}

	// narrow is full: nothing is consumed, and wide is described as a check.
	if err := m.Update(ctx, t0.Add(s1), batch, ds); err != nil {
		t.Fatal(err)
	}
	want = []Decision{
		{Allowed: true, Used: 1, Remaining: 9, ResetAfter: 9 * s1},
		{Used: 2, Remaining: 0, ResetAfter: 9 * s1, RetryAfter: 9 * s1},
	}
	if diff := cmp.Diff(want, ds); diff != "" {
		t.Fatalf("rejected batch mismatch (-want +got):\n%s", diff)
	}
	d, _ := m.UpdateOne(t0.Add(s1), Update{Key: "wide", Policy: wide})
	if d.Remaining != 9 {
		t.Errorf("wide after a rejected batch: Remaining = %d, want 9 (nothing consumed)", d.Remaining)
	}
}

func TestMemoryStoreBatchSameKeyTwice(t *testing.T) {
	m := NewMemoryStore(MemoryOptions{})
	p := Policy{Max: 3, Window: 10 * s1}
	ds := make([]Decision, 3)
	batch := []Update{{Key: "k", Policy: p, Cost: 1}, {Key: "k", Policy: p, Cost: 1}, {Key: "k", Policy: p, Cost: 0}}
	if err := m.Update(ctx, t0, batch, ds); err != nil {
		t.Fatal(err)
	}
	want := []Decision{
		{Allowed: true, Used: 1, Remaining: 2, ResetAfter: 10 * s1},
		{Allowed: true, Used: 2, Remaining: 1, ResetAfter: 10 * s1},
		{Allowed: true, Used: 2, Remaining: 1, ResetAfter: 10 * s1},
	}
	if diff := cmp.Diff(want, ds); diff != "" {
		t.Fatalf("batch mismatch (-want +got):\n%s", diff)
	}
	// Two more do not fit: the batch is rejected, the first update is
	// described as a check and the count stays at 2.
	if err := m.Update(ctx, t0, batch[:2], ds); err != nil {
		t.Fatal(err)
	}
	want = []Decision{
		{Allowed: true, Used: 2, Remaining: 1, ResetAfter: 10 * s1},
		{Used: 4, Remaining: 0, ResetAfter: 10 * s1, RetryAfter: 10 * s1},
	}
	if diff := cmp.Diff(want, ds[:2]); diff != "" {
		t.Fatalf("rejected pair mismatch (-want +got):\n%s", diff)
	}
	d, _ := m.UpdateOne(t0, Update{Key: "k", Policy: p})
	if d.Used != 2 {
		t.Errorf("count after the rejected pair = %v, want 2", d.Used)
	}
}

// TestMemoryStoreBatchWhileGrowing sends batches that mix stored and new
// counters of one shard, so that storing the new ones grows the table in
// the middle of a batch: every counter must count its hits.
func TestMemoryStoreBatchWhileGrowing(t *testing.T) {
	m := NewMemoryStore(MemoryOptions{MaxKeys: 127}) // one shard
	p := Policy{Max: 100, Window: time.Hour}
	counts := map[string]uint64{}
	for round := range 40 {
		keys := []string{"stored-a", fmt.Sprint("new-", round, "-x"), "stored-b", fmt.Sprint("new-", round, "-y"), "stored-a"}
		updates := make([]Update, len(keys))
		for i, k := range keys {
			updates[i] = Update{Key: k, Policy: p, Cost: 1}
		}
		decisions := make([]Decision, len(keys))
		if err := m.Update(ctx, t0, updates, decisions); err != nil {
			t.Fatal(err)
		}
		for i, k := range keys {
			counts[k]++
			if !decisions[i].Allowed || decisions[i].Used != float64(counts[k]) {
				t.Fatalf("round %d: update %d (%s) = %+v, want allowed with %d used", round, i, k, decisions[i], counts[k])
			}
		}
	}
	for k, n := range counts {
		d, _ := m.UpdateOne(t0, Update{Key: k, Policy: p})
		if d.Used != float64(n) {
			t.Errorf("%s counted %v hits, want %d", k, d.Used, n)
		}
	}
	if got, want := m.Len(), len(counts); got != want {
		t.Errorf("Len = %d, want %d", got, want)
	}
}

func TestMemoryStoreErrors(t *testing.T) {
	m := NewMemoryStore(MemoryOptions{})
	tests := []struct {
		name    string
		updates []Update
		n       int
	}{
		{"short decisions", []Update{{Key: "a", Policy: Policy{Max: 1, Window: s1}}}, 0},
		{"zero window", []Update{{Key: "a", Policy: Policy{Max: 1}}}, 1},
		{"weight above 100", []Update{{Key: "a", Policy: Policy{Algorithm: AlgorithmSlidingWindow, Max: 1, Window: s1, Weighted: true, Weight: 101}}}, 1},
		{"max too large", []Update{{Key: "a", Policy: Policy{Max: 1 << 40, Window: s1}}}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := m.Update(ctx, t0, tc.updates, make([]Decision, tc.n)); err == nil {
				t.Errorf("Update(%s) = nil, want an error", tc.name)
			}
		})
	}
	if m.Len() != 0 {
		t.Errorf("Len after failed updates = %d, want 0", m.Len())
	}
}

// TestMemoryStoreExactUnderConcurrency: 8 goroutines x 10,000 requests
// against a fixed window of max 1,000 admit exactly 1,000.
func TestMemoryStoreExactUnderConcurrency(t *testing.T) {
	p := Policy{Max: 1000, Window: time.Minute}
	t.Run("single key", func(t *testing.T) {
		m := NewMemoryStore(MemoryOptions{})
		admitted := hammer(8, 10_000, func(g, i int) bool {
			d, err := m.UpdateOne(t0.Add(time.Duration(i)*time.Microsecond), Update{Key: "shared", Policy: p, Cost: 1})
			if err != nil {
				panic(err)
			}
			return d.Allowed
		})
		if admitted != 1000 {
			t.Errorf("admitted %d, want exactly 1000", admitted)
		}
	})
	t.Run("batches across shards", func(t *testing.T) {
		// Each request also hits a per-goroutine counter (max 10,000, never
		// the reason for a rejection), so batches lock two or three shards.
		m := NewMemoryStore(MemoryOptions{})
		own := Policy{Max: 10_000, Window: time.Minute}
		admitted := hammer(8, 10_000, func(g, i int) bool {
			ds := make([]Decision, 3)
			err := m.Update(ctx, t0, []Update{
				{Key: "g" + strconv.Itoa(g), Policy: own, Cost: 1},
				{Key: "shared", Policy: p, Cost: 1},
				{Key: "g" + strconv.Itoa((g+1)%8), Policy: own, Cost: 0},
			}, ds)
			if err != nil {
				panic(err)
			}
			return ds[0].Allowed && ds[1].Allowed && ds[2].Allowed
		})
		if admitted != 1000 {
			t.Errorf("admitted %d, want exactly 1000", admitted)
		}
		var total uint64
		for g := range 8 {
			d, _ := m.UpdateOne(t0, Update{Key: "g" + strconv.Itoa(g), Policy: own})
			total += uint64(d.Used)
		}
		if total != 1000 {
			t.Errorf("per-goroutine counters sum to %d, want 1000 (rejected batches consume nothing)", total)
		}
	})
}

// hammer runs f from g goroutines n times each and counts the trues.
func hammer(g, n int, f func(g, i int) bool) int {
	var admitted atomic.Int64
	var wg sync.WaitGroup
	for gi := range g {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range n {
				if f(gi, i) {
					admitted.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return int(admitted.Load())
}

// TestTokenBucketBoundUnderConcurrency: with a shared clock advancing, a
// token bucket never admits more than burst + rate x elapsed, even with the
// goroutines' instants interleaving out of order.
func TestTokenBucketBoundUnderConcurrency(t *testing.T) {
	for _, alg := range []Algorithm{AlgorithmTokenBucket, AlgorithmGCRA} {
		t.Run(alg.String(), func(t *testing.T) {
			const burst, perSecond = 100, 1000
			p := Policy{Algorithm: alg, Max: burst, Window: time.Second / (perSecond / burst)}
			m := NewMemoryStore(MemoryOptions{})
			var clock atomic.Int64 // µs since t0
			admitted := hammer(8, 10_000, func(g, i int) bool {
				now := t0.Add(time.Duration(clock.Add(3)) * time.Microsecond)
				if i%3 == 0 { // a stale instant
					now = now.Add(-5 * ms)
				}
				d, err := m.UpdateOne(now, Update{Key: "k", Policy: p, Cost: 1})
				if err != nil {
					panic(err)
				}
				return d.Allowed
			})
			// From the earliest instant passed (stale, 5 ms before t0) to the latest.
			elapsed := time.Duration(clock.Load())*time.Microsecond + 5*ms
			bound := burst + int(elapsed.Seconds()*perSecond)
			if admitted > bound {
				t.Errorf("admitted %d over %v, more than burst + rate x elapsed = %d", admitted, elapsed, bound)
			}
			if admitted < bound*9/10 {
				t.Errorf("admitted %d over %v, far below the bound %d: the test is not exercising the limit", admitted, elapsed, bound)
			}
			t.Logf("admitted %d of 80,000 over %v (bound %d)", admitted, elapsed, bound)
		})
	}
}

func TestMemoryStoreExpiryAndSweep(t *testing.T) {
	m := NewMemoryStore(MemoryOptions{SweepInterval: time.Hour})
	p := Policy{Max: 1, Window: s1}
	for i := range 100 {
		if _, err := m.UpdateOne(t0, Update{Key: fmt.Sprint("k", i), Policy: p, Cost: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if got := m.Len(); got != 100 {
		t.Fatalf("Len = %d, want 100", got)
	}
	// A check on an unknown key stores nothing.
	if _, err := m.UpdateOne(t0, Update{Key: "unknown", Policy: p}); err != nil {
		t.Fatal(err)
	}
	if got := m.Len(); got != 100 {
		t.Fatalf("Len after a check = %d, want 100", got)
	}
	m.Sweep(t0.Add(999 * ms))
	if got := m.Len(); got != 100 {
		t.Fatalf("Len after an early sweep = %d, want 100", got)
	}
	m.Sweep(t0.Add(s1))
	if got := m.Len(); got != 0 {
		t.Fatalf("Len after the window = %d, want 0", got)
	}
	// k0 was swept at t0+1s: a stale t0 is decided at t0+1s, in the next
	// window, so the swept window's count cannot be reused.
	d, _ := m.UpdateOne(t0, Update{Key: "k0", Policy: p, Cost: 1})
	if !d.Allowed || d.ResetAfter != 2*s1 {
		t.Errorf("stale update after sweep = %+v, want admitted in the window ending 2s after the caller's now", d)
	}
	d, _ = m.UpdateOne(t0.Add(500*ms), Update{Key: "k0", Policy: p, Cost: 1})
	if d.Allowed {
		t.Errorf("second update in the same window = %+v, want rejected", d)
	}
}

func TestMemoryStoreSweepsOnWrite(t *testing.T) {
	m := NewMemoryStore(MemoryOptions{SweepInterval: s1})
	p := Policy{Max: 1, Window: s1}
	for i := range 1000 {
		m.UpdateOne(t0, Update{Key: fmt.Sprint("old", i), Policy: p, Cost: 1})
	}
	// Writes two seconds later sweep every shard they touch.
	for i := range 5000 {
		m.UpdateOne(t0.Add(2*s1), Update{Key: fmt.Sprint("new", i), Policy: p, Cost: 1})
	}
	if got := m.Len(); got != 5000 {
		t.Errorf("Len = %d, want 5000 (every old key swept)", got)
	}
}

func TestMemoryStoreEvictsClosestToExpiry(t *testing.T) {
	m := NewMemoryStore(MemoryOptions{MaxKeys: 2})
	if got := m.MaxKeys(); got != 2 {
		t.Fatalf("MaxKeys = %d, want 2", got)
	}
	short := Policy{Max: 1, Window: s1}
	long := Policy{Max: 1, Window: time.Hour}
	m.UpdateOne(t0, Update{Key: "long", Policy: long, Cost: 1})
	m.UpdateOne(t0, Update{Key: "short", Policy: short, Cost: 1})
	m.UpdateOne(t0, Update{Key: "new", Policy: long, Cost: 1})
	if got := m.Len(); got != 2 {
		t.Fatalf("Len = %d, want 2", got)
	}
	if d, _ := m.UpdateOne(t0, Update{Key: "long", Policy: long}); d.Used != 1 {
		t.Errorf("long was evicted (count %v), want short evicted", d.Used)
	}
	if d, _ := m.UpdateOne(t0, Update{Key: "short", Policy: short}); d.Used != 0 {
		t.Errorf("short kept (count %v), want it evicted as closest to expiry", d.Used)
	}
}

// TestMemoryStoreBound inserts 1,200,000 distinct keys into a store with the
// default bound of 1,000,000.
func TestMemoryStoreBound(t *testing.T) {
	m := NewMemoryStore(MemoryOptions{})
	p := Policy{Max: 5, Window: time.Hour}
	key := make([]byte, 0, 16)
	for i := range 1_200_000 {
		key = strconv.AppendInt(key[:0], int64(i), 36)
		if _, err := m.UpdateOne(t0, Update{Key: string(key), Policy: p, Cost: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if got := m.Len(); got > DefaultMaxKeys {
		t.Errorf("Len = %d, more than the bound %d", got, DefaultMaxKeys)
	} else if got < DefaultMaxKeys*99/100 {
		t.Errorf("Len = %d, far below the bound %d", got, DefaultMaxKeys)
	}
	for i := range m.shards {
		if n := m.shards[i].n; n > m.lim.keys {
			t.Fatalf("shard %d holds %d keys, more than %d", i, n, m.lim.keys)
		}
	}
}

// TestMemoryStoreShardSize checks that a large bound takes more shards
// rather than larger ones, so that what touches a whole shard (growing its
// table) stays small at millions of counters.
func TestMemoryStoreShardSize(t *testing.T) {
	for _, tc := range []struct{ maxKeys, shards int }{
		{100, 1},
		{1 << 14, 256},
		{DefaultMaxKeys, 256},
		{10_000_000, 4096},
		{1 << 40, 1 << 16},
	} {
		m := NewMemoryStore(MemoryOptions{MaxKeys: tc.maxKeys})
		if got := len(m.shards); got != tc.shards {
			t.Errorf("MaxKeys %d: %d shards, want %d", tc.maxKeys, got, tc.shards)
		}
		if tc.maxKeys <= 1<<28 && m.lim.keys > 4096 {
			t.Errorf("MaxKeys %d: %d counters per shard, want at most 4,096", tc.maxKeys, m.lim.keys)
		}
	}
}
