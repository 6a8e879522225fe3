package refcount

import (
	"strings"
	"sync"
)

// EntryOverhead is what the local cache charges for an entry beyond its
// key's bytes.
const EntryOverhead = 48

// localCache remembers the keys found over, each until an instant in Unix
// seconds and under the limit it was over, within a byte budget. It is
// safe for concurrent use.
type localCache struct {
	mu      sync.Mutex
	budget  int
	used    int
	entries map[string]overEntry
}

// overEntry is a key found over: until when (Unix seconds, exclusive) and
// under which limit. A counter over a limit is over any lower one, not a
// higher one (a reload raising the limit).
type overEntry struct {
	until int64
	max   uint64
}

func newLocalCache(budget int) *localCache {
	return &localCache{budget: budget, entries: map[string]overEntry{}}
}

// over reports whether key is remembered over at nowSec under limit:
// found over under limit or a higher one.
func (c *localCache) over(key string, nowSec int64, limit uint64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if ok && nowSec >= e.until {
		c.remove(key)
		return false
	}
	return ok && limit <= e.max
}

// put remembers key over limit until untilSec. When the budget is full, the
// expired entries go first, then arbitrary ones down to seven eighths of
// the budget, so that a full cache is scanned once for every eighth of
// its budget that new entries take.
func (c *localCache) put(key string, limit uint64, untilSec, nowSec int64) {
	size := len(key) + EntryOverhead
	if size > c.budget {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[key]; ok {
		// Assigning to an existing string key stores the new key too: a
		// copy, as the caller's may alias its buffer.
		c.entries[strings.Clone(key)] = overEntry{untilSec, limit}
		return
	}
	if c.used+size > c.budget {
		target := max(c.budget-c.budget/8-size, 0)
		for k, e := range c.entries {
			if e.until <= nowSec {
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
	c.entries[strings.Clone(key)] = overEntry{untilSec, limit} // keys may alias the caller's buffer
	c.used += size
}

// remove deletes an existing entry; c.mu must be held.
func (c *localCache) remove(k string) {
	delete(c.entries, k)
	c.used -= len(k) + EntryOverhead
}
