package storetest

import (
	"testing"

	"github.com/rlpkit/rlpkit/limit/counter"
)

func TestMemoryStore(t *testing.T) {
	Run(t, func(*testing.T) counter.Store { return counter.NewMemoryStore(counter.MemoryOptions{}) })
}

func TestMemoryStoreAdjust(t *testing.T) {
	RunAdjust(t, func(*testing.T) AdjustStore { return counter.NewMemoryStore(counter.MemoryOptions{}) })
}
