package refcount

import (
	"sync"

	"github.com/rlpkit/rlpkit/limit/internal/budget"
)

// EntryOverhead is what the local cache charges for an entry beyond its
// key's bytes.
const EntryOverhead = 48

// localCache remembers the keys found over, each until an instant in Unix
// seconds and under the limit it was over, within a byte budget (the
// expired entries go first when it is full). It is safe for concurrent use.
type localCache struct {
	mu sync.Mutex
	m  budget.Map[overEntry]
}

// overEntry is a key found over: until when (Unix seconds, exclusive) and
// under which limit. A counter over a limit is over any lower one, not a
// higher one (a reload raising the limit).
type overEntry struct {
	until int64
	max   uint64
}

// ExpiredAt reports whether the entry no longer holds at nowSec.
func (e overEntry) ExpiredAt(nowSec int64) bool { return e.until <= nowSec }

func newLocalCache(bytes int) *localCache {
	return &localCache{m: budget.New[overEntry](bytes, EntryOverhead)}
}

// over reports whether key is remembered over at nowSec under limit:
// found over under limit or a higher one.
func (c *localCache) over(key string, nowSec int64, limit uint64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m.Entries[key]
	if ok && e.ExpiredAt(nowSec) {
		c.m.Remove(key)
		return false
	}
	return ok && limit <= e.max
}

// put remembers key over limit until untilSec.
func (c *localCache) put(key string, limit uint64, untilSec, nowSec int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m.Put(key, overEntry{untilSec, limit}, nowSec)
}
