package overlimitcache

import (
	"context"
	"errors"
	"time"

	"github.com/rlpkit/rlpkit/limit/counter"
)

// errNoAdjuster is the error of Adjust over a wrapped store that cannot
// charge after the fact.
var errNoAdjuster = errors.New("overlimitcache: the wrapped store cannot charge after the fact (counter.Adjuster)")

// Adjust implements counter.Adjuster when the wrapped store does: it
// passes adjustments on, then forgets every counter they touched, which the
// wrapped store decides again from then on. A counter given hits back is
// full no longer (the cache's premise, that a window's count never goes
// down, holds for Update alone), and one given more hits holds a count the
// remembered entry does not know.
func (c *Cache) Adjust(ctx context.Context, now time.Time, adjustments []counter.Adjustment) error {
	a, ok := c.inner.(counter.Adjuster)
	if !ok {
		return errNoAdjuster
	}
	err := a.Adjust(ctx, now, adjustments)
	c.mu.Lock()
	for i := range adjustments {
		if k := adjustments[i].Key; k != "" {
			if _, held := c.m.Entries[k]; held {
				c.m.Remove(k)
			}
		}
	}
	c.mu.Unlock()
	return err
}

// atMax reports whether decision d shows its counter holding no more than
// its maximum, the count an entry's answers describe: a counter charged
// past it by Adjust is left to the wrapped store.
func atMax(u *counter.Update, d *counter.Decision) bool {
	count := d.Used
	if !d.Allowed {
		count -= float64(u.Cost)
	}
	return count <= float64(u.Policy.Max)
}
