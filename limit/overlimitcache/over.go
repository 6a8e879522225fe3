package overlimitcache

import (
	"strings"
	"time"

	"github.com/rlpkit/rlpkit/limit/counter"
)

// countsOver reports whether u adds hits to a fixed window whatever its
// count, as limit/envoyratelimit counts the rejected hits of a counter
// over: its maximum is counter.MaxPolicyValue.
func countsOver(u *counter.Update) bool {
	return u.Cost > 0 && u.Policy.Algorithm == counter.AlgorithmFixedWindow && u.Policy.Max == counter.MaxPolicyValue
}

// notFull takes a decision showing u's counter not full under u's policy:
// it forgets the counter's entry, unless u is a higher maximum on the
// entry's window (the count is then still at least the entry's), and
// marks the entry over when u counted hits over it (countsOver).
func (c *Cache) notFull(u *counter.Update, d *counter.Decision) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m.Entries[u.Key]
	switch {
	case !ok:
	case u.Policy.Algorithm != counter.AlgorithmFixedWindow || u.Policy.Window != e.window || u.Policy.Max <= e.max:
		c.m.Remove(u.Key)
	case countsOver(u) && d.Allowed && !e.over:
		e.over = true
		c.m.Entries[strings.Clone(u.Key)] = e // the caller's key may alias its buffer
	}
}

// pastMax forgets the entry of u's counter, whose count is past its maximum,
// unless the entry is known over under the same maximum and window.
func (c *Cache) pastMax(u *counter.Update) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m.Entries[u.Key]; ok && !(e.over && e.max == u.Policy.Max && e.window == u.Policy.Window) {
		c.m.Remove(u.Key)
	}
}

// dropOver answers, without the wrapped store, a batch that only counts
// hits over counters already known over (entries marked over, within
// their windows), as envoyproxy/ratelimit increments nothing for a key
// its local cache holds over: the hits are not counted, and each decision
// is allowed, with the entry's maximum plus one plus the cost as a lower
// bound of the count. It reports whether it did.
func (c *Cache) dropOver(now time.Time, updates []counter.Update, decisions []counter.Decision) bool {
	if len(decisions) < len(updates) {
		return false
	}
	nowUs := now.UnixMicro()
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range updates {
		u := &updates[i]
		e, ok := c.m.Entries[u.Key]
		if !countsOver(u) || !ok || !e.over || u.Policy.Window != e.window ||
			nowUs >= e.untilUs || nowUs < e.untilUs-e.window.Microseconds() {
			return false
		}
	}
	for i := range updates {
		e := c.m.Entries[updates[i].Key]
		used := e.max + 1 + updates[i].Cost
		left := time.Duration(e.untilUs-nowUs) * time.Microsecond
		decisions[i] = counter.Decision{Allowed: true, Used: float64(used), Remaining: counter.MaxPolicyValue - min(used, counter.MaxPolicyValue), ResetAfter: left}
	}
	return true
}
