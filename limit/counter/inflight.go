package counter

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
)

const inFlightShards = 64

// InFlight limits concurrent work per key: at most Max acquisitions of one key
// are held at a time. Unlike the other algorithms it has no window; a count
// goes down when its holder releases it. Keys with nothing held take no
// memory. An InFlight is safe for concurrent use; create it with NewInFlight.
type InFlight struct {
	max    uint64
	seed   maphash.Seed
	shards [inFlightShards]inFlightShard
}

type inFlightShard struct {
	mu     sync.Mutex
	counts map[string]uint64
	_      [48]byte // keep shards on separate cache lines
}

// NewInFlight returns an in-flight limiter admitting at most max concurrent
// holders per key. A max of 0 admits nothing.
func NewInFlight(max uint64) *InFlight {
	f := &InFlight{max: max, seed: maphash.MakeSeed()}
	for i := range f.shards {
		f.shards[i].counts = make(map[string]uint64)
	}
	return f
}

// Acquire takes n units (0 counts as 1) for key. When admitted, the returned
// release gives them back; calling it more than once has no further effect.
// When rejected, nothing is held and release does nothing, so
// `defer release()` is always safe. The decision's Used is the count
// including n; ResetAfter and RetryAfter are zero (the limiter cannot know
// when holders finish).
func (f *InFlight) Acquire(key string, n uint64) (release func(), d Decision) {
	n = need(n)
	sh := &f.shards[maphash.String(f.seed, key)%inFlightShards]
	sh.mu.Lock()
	cur := sh.counts[key]
	d.Used = float64(addSat(cur, n))
	if n > sub(f.max, cur) {
		d.Remaining = sub(f.max, cur)
		sh.mu.Unlock()
		return func() {}, d
	}
	cur += n
	sh.counts[key] = cur
	sh.mu.Unlock()
	d.Allowed = true
	d.Remaining = f.max - cur
	var done atomic.Bool
	return func() {
		if done.Swap(true) {
			return
		}
		sh.mu.Lock()
		if left := sh.counts[key] - n; left == 0 {
			delete(sh.counts, key)
		} else {
			sh.counts[key] = left
		}
		sh.mu.Unlock()
	}, d
}

// InUse returns the units currently held for key.
func (f *InFlight) InUse(key string) uint64 {
	sh := &f.shards[maphash.String(f.seed, key)%inFlightShards]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.counts[key]
}

// Max returns the limiter's maximum per key.
func (f *InFlight) Max() uint64 { return f.max }
