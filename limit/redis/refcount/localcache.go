package refcount

import (
	"strings"
	"sync"
)

// EntryOverhead is what the local cache charges for an entry beyond its
// key's bytes.
const EntryOverhead = 48

// localCache remembers the keys found over, each until an instant in Unix
// seconds, within a byte budget. It is safe for concurrent use.
type localCache struct {
	mu      sync.Mutex
	budget  int
	used    int
	entries map[string]int64 // key -> until (Unix seconds, exclusive)
}

func newLocalCache(budget int) *localCache {
	return &localCache{budget: budget, entries: map[string]int64{}}
}

// over reports whether key is remembered over at nowSec.
func (c *localCache) over(key string, nowSec int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	until, ok := c.entries[key]
	if ok && nowSec >= until {
		c.remove(key)
		return false
	}
	return ok
}

// put remembers key over until untilSec. When the budget is full, the
// expired entries go first, then arbitrary ones down to seven eighths of
// the budget, so that a full cache is scanned once for every eighth of
// its budget that new entries take.
func (c *localCache) put(key string, untilSec, nowSec int64) {
	size := len(key) + EntryOverhead
	if size > c.budget {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[key]; ok {
		// Assigning to an existing string key stores the new key too: a
		// copy, as the caller's may alias its buffer.
		c.entries[strings.Clone(key)] = untilSec
		return
	}
	if c.used+size > c.budget {
		target := max(c.budget-c.budget/8-size, 0)
		for k, until := range c.entries {
			if until <= nowSec {
				c.remove(k)
			}
		}
		for k := range c.entries {
			if c.used <= target {
				break
			}
			c.remove(k)
		}
	}
	c.entries[strings.Clone(key)] = untilSec // keys may alias the caller's buffer
	c.used += size
}

// remove deletes an existing entry; c.mu must be held.
func (c *localCache) remove(k string) {
	delete(c.entries, k)
	c.used -= len(k) + EntryOverhead
}
