package storetest

import (
	"testing"

	"github.com/rlpkit/rlpkit/limit"
)

func TestMemoryStore(t *testing.T) {
	Run(t, func(*testing.T) limit.Store { return limit.NewMemoryStore(limit.MemoryOptions{}) })
}
