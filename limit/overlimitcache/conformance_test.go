package overlimitcache

import (
	"testing"

	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/counter/storetest"
)

// TestConformance holds the cache in front of the memory store to the
// contract every Store meets: its answers are the wrapped store's.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) counter.Store {
		return New(counter.NewMemoryStore(counter.MemoryOptions{}), 1<<20)
	})
}

// TestAdjustConformance holds the cache's Adjust to the contract: counters
// given hits back are decided by the wrapped store again.
func TestAdjustConformance(t *testing.T) {
	storetest.RunAdjust(t, func(t *testing.T) storetest.AdjustStore {
		return New(counter.NewMemoryStore(counter.MemoryOptions{}), 1<<20)
	})
}
