package counter

import (
	"fmt"
	"strconv"
	"testing"
	"time"
)

// batchProbes applies one batch to m and returns the key comparisons and
// map look-ups it took.
func batchProbes(t *testing.T, m *MemoryStore, updates []Update) int {
	t.Helper()
	probes := -1
	m.onBatch = func(n int) { probes = n }
	defer func() { m.onBatch = nil }()
	if err := m.Update(ctx, t0, updates, make([]Decision, len(updates))); err != nil {
		t.Fatal(err)
	}
	if probes < 0 {
		t.Fatal("the batch reported no work")
	}
	return probes
}

// TestMemoryStoreBatchWorkLinear counts the key comparisons and map
// look-ups of batches of n and 2n updates: distinct keys, each key twice,
// and new keys in a full store, where every new key evicts one that is not
// in the batch until the store holds only the batch's keys. The work must
// be linear in the batch size: at most a few probes per update, and twice
// the updates at most twice the work (plus what eviction does once per
// shard).
func TestMemoryStoreBatchWorkLinear(t *testing.T) {
	p := Policy{Max: 1 << 30, Window: time.Hour}
	batch := func(prefix string, n, times int) []Update {
		var us []Update
		for r := range times {
			for i := range n {
				us = append(us, Update{Key: prefix + strconv.Itoa(i), Policy: p, Cost: uint64(1 - r%2)})
			}
		}
		return us
	}
	full := func() *MemoryStore {
		m := NewMemoryStore(MemoryOptions{MaxKeys: 256})
		for i := range 1000 {
			m.UpdateOne(t0, Update{Key: "old" + strconv.Itoa(i), Policy: p, Cost: 1})
		}
		return m
	}
	const perShardEviction = 64 * 128 // evictions per shard, times the slots each may scan
	for _, c := range []struct {
		name    string
		store   func() *MemoryStore
		times   int
		perUpd  int
		onceFor int // work done once, whatever the batch size
	}{
		{"distinct", func() *MemoryStore { return NewMemoryStore(MemoryOptions{}) }, 1, 1, 0},
		{"each key twice", func() *MemoryStore { return NewMemoryStore(MemoryOptions{}) }, 2, 1, 0},
		{"full store", full, 1, 2, 4 * perShardEviction},
	} {
		t.Run(c.name, func(t *testing.T) {
			var last int
			for _, n := range []int{1_000, 2_000, 4_000} {
				us := batch(c.name, n, c.times)
				got := batchProbes(t, c.store(), us)
				if limit := c.perUpd*len(us) + c.onceFor; got > limit {
					t.Errorf("a batch of %d updates took %d key probes, want at most %d", len(us), got, limit)
				}
				if last > 0 && got > 2*last+c.onceFor {
					t.Errorf("a batch of %d updates took %d key probes, more than twice the %d of half as many", len(us), got, last)
				}
				last = got
			}
		})
	}
}

// TestMemoryStoreFullOfBatchKeys checks that a batch with more new keys
// than a full store holds keeps its own keys and stores as many as fit,
// evicting every key that was not in the batch, and that the next batch
// evicts the previous batch's keys again.
func TestMemoryStoreFullOfBatchKeys(t *testing.T) {
	p := Policy{Max: 10, Window: time.Hour}
	m := NewMemoryStore(MemoryOptions{MaxKeys: 64})
	for i := range 64 {
		m.UpdateOne(t0, Update{Key: fmt.Sprint("old", i), Policy: p, Cost: 1})
	}
	for round, prefix := range []string{"a", "b"} {
		us := make([]Update, 200)
		for i := range us {
			us[i] = Update{Key: fmt.Sprint(prefix, i), Policy: p, Cost: 1}
		}
		if err := m.Update(ctx, t0, us, make([]Decision, len(us))); err != nil {
			t.Fatal(err)
		}
		if got := m.Len(); got != 64 {
			t.Fatalf("round %d: Len = %d, want 64", round, got)
		}
		stored := 0
		for i := range us {
			if d, _ := m.UpdateOne(t0, Update{Key: us[i].Key, Policy: p}); d.Used == 1 {
				stored++
			}
		}
		if stored != 64 {
			t.Errorf("round %d: %d of the batch's keys stored, want 64 (the store full of them)", round, stored)
		}
		for i := range m.shards {
			if m.shards[i].batchOnly {
				t.Errorf("round %d: shard %d still marked as holding only a batch's keys", round, i)
			}
		}
	}
}
