package overlimitcache

import (
	"context"
	"fmt"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"github.com/rlpkit/rlpkit/limit/counter"
)

// countingStore counts the calls that reach the wrapped store.
type countingStore struct {
	counter.Store
	calls int
}

func (s *countingStore) Update(ctx context.Context, now time.Time, u []counter.Update, d []counter.Decision) error {
	s.calls++
	return s.Store.Update(ctx, now, u, d)
}

var t0 = time.Unix(1_800_000_000, 0) // a whole minute

func fixed(max uint64) counter.Policy {
	return counter.Policy{Max: max, Window: time.Minute}
}

func TestCache(t *testing.T) {
	type call struct {
		at      time.Duration
		updates []counter.Update
		allowed []bool
		inner   bool // whether the wrapped store was asked
	}
	a2 := counter.Update{Key: "a", Policy: fixed(2), Cost: 1}
	a3 := counter.Update{Key: "a", Policy: fixed(3), Cost: 1}
	b := counter.Update{Key: "b", Policy: fixed(5), Cost: 1}
	aCheck := counter.Update{Key: "a", Policy: fixed(2)}
	aHuge := counter.Update{Key: "a", Policy: fixed(counter.MaxPolicyValue), Cost: 1}
	tb := counter.Update{Key: "t", Policy: counter.Policy{Algorithm: counter.AlgorithmTokenBucket, Max: 1, Window: time.Minute}, Cost: 1}
	tests := []struct {
		name  string
		calls []call
	}{
		{"full counter answered locally until its window ends", []call{
			{0, []counter.Update{a2}, []bool{true}, true},
			{0, []counter.Update{a2}, []bool{true}, true}, // now full: remembered
			{time.Second, []counter.Update{a2}, []bool{false}, false},
			// A check on the full counter is allowed (only going over is
			// over): the store decides it.
			{59 * time.Second, []counter.Update{aCheck}, []bool{true}, true},
			{59 * time.Second, []counter.Update{a2}, []bool{false}, false},
			{60 * time.Second, []counter.Update{a2}, []bool{true}, true},
		}},
		{"a raised limit is not answered from the old entry", []call{
			{0, []counter.Update{a2}, []bool{true}, true},
			{0, []counter.Update{a2}, []bool{true}, true},
			{0, []counter.Update{a3}, []bool{true}, true},
		}},
		{"a higher capacity on the same window keeps the entry", []call{
			{0, []counter.Update{a2}, []bool{true}, true},
			{0, []counter.Update{a2}, []bool{true}, true},
			// Rejected hits counted as limit/envoyratelimit counts them.
			{0, []counter.Update{aHuge}, []bool{true}, true},
			{time.Second, []counter.Update{a2}, []bool{false}, false},
			// Another window on the key may have started it again.
			{time.Second, []counter.Update{{Key: "a", Policy: counter.Policy{Max: 9, Window: time.Hour}, Cost: 1}}, []bool{true}, true},
			{time.Second, []counter.Update{a2}, []bool{false}, true},
		}},
		{"rejected hits over a counter known over are not counted again", []call{
			{0, []counter.Update{a2}, []bool{true}, true},
			{0, []counter.Update{a2}, []bool{true}, true},
			{0, []counter.Update{a2}, []bool{false}, false},
			{0, []counter.Update{aHuge}, []bool{true}, true}, // now 3 of 2: over
			{time.Second, []counter.Update{a2}, []bool{false}, false},
			{time.Second, []counter.Update{aHuge}, []bool{true}, false}, // dropped, as the reference's cache
			{time.Second, []counter.Update{aHuge, b}, []bool{true, true}, true},
			{time.Second, []counter.Update{a3}, []bool{false}, true},        // 4 of 3: the store decides
			{60 * time.Second, []counter.Update{aHuge}, []bool{true}, true}, // a new window
		}},
		{"a request touching another counter goes to the store", []call{
			{0, []counter.Update{a2}, []bool{true}, true},
			{0, []counter.Update{a2}, []bool{true}, true},
			{0, []counter.Update{a2, b}, []bool{false, true}, true},
			{0, []counter.Update{b}, []bool{true}, true}, // b did not move: all or nothing
		}},
		{"other algorithms are never remembered", []call{
			{0, []counter.Update{tb}, []bool{true}, true},
			{0, []counter.Update{tb}, []bool{false}, true},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			inner := &countingStore{Store: counter.NewMemoryStore(counter.MemoryOptions{})}
			c := New(inner, 1<<20)
			for i, cl := range tc.calls {
				before := inner.calls
				ds := make([]counter.Decision, len(cl.updates))
				if err := c.Update(context.Background(), t0.Add(cl.at), cl.updates, ds); err != nil {
					t.Fatal(err)
				}
				var got []bool
				for _, d := range ds {
					got = append(got, d.Allowed)
				}
				if diff := cmp.Diff(cl.allowed, got); diff != "" {
					t.Errorf("call %d: allowed (-want +got):\n%s", i, diff)
				}
				if asked := inner.calls > before; asked != cl.inner {
					t.Errorf("call %d: store asked = %v, want %v", i, asked, cl.inner)
				}
			}
		})
	}
}

func TestCacheDecisionDurations(t *testing.T) {
	c := New(counter.NewMemoryStore(counter.MemoryOptions{}), 1<<20)
	u := []counter.Update{{Key: "k", Policy: fixed(1), Cost: 1}}
	ds := make([]counter.Decision, 1)
	if err := c.Update(context.Background(), t0, u, ds); err != nil {
		t.Fatal(err)
	}
	if err := c.Update(context.Background(), t0.Add(15*time.Second), u, ds); err != nil {
		t.Fatal(err)
	}
	want := counter.Decision{Used: 2, ResetAfter: 45 * time.Second, RetryAfter: 45 * time.Second}
	if diff := cmp.Diff(want, ds[0]); diff != "" || c.Hits() != 1 {
		t.Errorf("cached decision (-want +got):\n%s hits %d, want 1", diff, c.Hits())
	}
}

func TestCacheBudget(t *testing.T) {
	budget := 10 * (EntryOverhead + 4)
	c := New(counter.NewMemoryStore(counter.MemoryOptions{}), budget)
	for i := range 100 {
		u := []counter.Update{{Key: fmt.Sprintf("k%03d", i), Policy: fixed(0), Cost: 1}}
		if err := c.Update(context.Background(), t0, u, make([]counter.Decision, 1)); err != nil {
			t.Fatal(err)
		}
		if c.Len() > 10 || c.m.Used() > budget {
			t.Fatalf("after %d keys: %d entries, %d bytes, want at most 10 and %d", i+1, c.Len(), c.m.Used(), budget)
		}
	}
	if c.Len() != 10 {
		t.Errorf("Len() = %d, want 10", c.Len())
	}
}

// TestCacheCopiesKeys: keys may alias a buffer the caller reuses (as
// package limit/envoyratelimit does), so a remembered key must be a copy.
func TestCacheCopiesKeys(t *testing.T) {
	inner := &countingStore{Store: counter.NewMemoryStore(counter.MemoryOptions{})}
	c := New(inner, 1<<20)
	buf := []byte("full")
	key := unsafe.String(&buf[0], len(buf))
	u := []counter.Update{{Key: key, Policy: fixed(1), Cost: 1}}
	if err := c.Update(context.Background(), t0, u, make([]counter.Decision, 1)); err != nil {
		t.Fatal(err)
	}
	copy(buf, "xxxx") // the caller reuses its buffer
	ds := make([]counter.Decision, 1)
	if err := c.Update(context.Background(), t0, []counter.Update{{Key: "full", Policy: fixed(1), Cost: 1}}, ds); err != nil {
		t.Fatal(err)
	}
	if ds[0].Allowed || inner.calls != 1 {
		t.Errorf("after the caller's buffer changed: allowed %v, store calls %d; want answered from the cache (false, 1)", ds[0].Allowed, inner.calls)
	}
}

// TestCacheCopiesKeysOnRefresh: a counter remembered again (a check shows
// it still full) keeps a copy of its key too, as assigning to a map's
// existing string key stores the key given.
func TestCacheCopiesKeysOnRefresh(t *testing.T) {
	inner := &countingStore{Store: counter.NewMemoryStore(counter.MemoryOptions{})}
	c := New(inner, 1<<20)
	buf := []byte("full")
	key := unsafe.String(&buf[0], len(buf))
	for _, cost := range []uint64{1, 0} { // remembered, then a check remembers it again
		u := []counter.Update{{Key: key, Policy: fixed(1), Cost: cost}}
		if err := c.Update(context.Background(), t0, u, make([]counter.Decision, 1)); err != nil {
			t.Fatal(err)
		}
	}
	copy(buf, "xxxx") // the caller reuses its buffer
	ds := make([]counter.Decision, 1)
	if err := c.Update(context.Background(), t0, []counter.Update{{Key: "full", Policy: fixed(1), Cost: 1}}, ds); err != nil {
		t.Fatal(err)
	}
	if ds[0].Allowed || inner.calls != 2 {
		t.Errorf("after the caller's buffer changed: allowed %v, store calls %d; want answered from the cache (false, 2)", ds[0].Allowed, inner.calls)
	}
}
