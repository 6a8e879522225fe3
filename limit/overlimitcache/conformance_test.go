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
