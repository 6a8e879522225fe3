//go:build !race

// The race detector makes sync.Pool drop items at random, so allocation
// counts are only meaningful without it.

package counter

import (
	"context"
	"testing"
)

func TestMemoryStoreAllocations(t *testing.T) {
	m := NewMemoryStore(MemoryOptions{})
	u := Update{Key: "k", Policy: Policy{Algorithm: AlgorithmTokenBucket, Max: 1 << 30, Window: s1}, Cost: 1}
	m.UpdateOne(t0, u)
	batch := []Update{u, {Key: "j", Policy: u.Policy, Cost: 1}}
	ds := make([]Decision, 2)
	allocs := testing.AllocsPerRun(1000, func() {
		m.UpdateOne(t0, u)
		if err := m.Update(context.Background(), t0, batch, ds); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("UpdateOne and Update of existing counters allocate %v times, want 0", allocs)
	}
}
