package main

import "github.com/rlpkit/rlpkit/limit"

// newMemoryStore returns the in-process store, bounded by maxKeys counters
// (0: limit.DefaultMaxKeys).
func newMemoryStore(maxKeys int) limit.Store {
	return limit.NewMemoryStore(limit.MemoryOptions{MaxKeys: maxKeys})
}
