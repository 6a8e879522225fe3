package httplimit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"

	"github.com/rlpkit/rlpkit/limit/counter"
)

// chargeKey is the context key of a request's chargers.
type chargeKey struct{}

// charger is a rate limiter that admitted the request, with the counter key it counted
// the request under; parent is the limiter before it in the chain.
type charger struct {
	l      *Limiter
	key    string
	parent *charger
}

// withCharger returns r with l's counter for r added to the chargers Charge reaches. A
// request whose key is missing or empty gets none: it was not counted.
func (l *Limiter) withCharger(r *http.Request) *http.Request {
	key, ok := l.appendKeyValue([]byte(l.prefix), r)
	if !ok {
		return r
	}
	parent, _ := r.Context().Value(chargeKey{}).(*charger)
	return r.WithContext(context.WithValue(r.Context(), chargeKey{}, &charger{l: l, key: string(key), parent: parent}))
}

// Charge adds n hits, without deciding anything, to the counter of every rate limiter whose
// Handler admitted r: how a handler charges a cost it learns only once it has answered (the
// tokens an LLM reply used, the bytes it sent). The hits count against later requests of
// the same key; the current one has already passed. Call it with the request the handler
// received (or one derived from it); for a request no rate limiter counted, Charge does
// nothing. The store must implement counter.Adjuster (the memory store and limit/redis do),
// and the algorithm be a fixed or sliding window; otherwise, or when the store fails,
// Charge returns an error naming the plugin, having charged the other limiters.
func Charge(r *http.Request, n uint64) error {
	if n == 0 {
		return nil
	}
	if n > math.MaxInt64 {
		return fmt.Errorf("httplimit: Charge: %d hits is more than %d", n, int64(math.MaxInt64))
	}
	var errs []error
	for c, _ := r.Context().Value(chargeKey{}).(*charger); c != nil; c = c.parent {
		adj, ok := c.l.store.(counter.Adjuster)
		if !ok {
			errs = append(errs, fmt.Errorf("httplimit: plugin %s: its store cannot charge after the fact (it does not implement counter.Adjuster)", c.l.name))
			continue
		}
		a := []counter.Adjustment{{Key: c.key, Policy: c.l.policy, Delta: int64(n)}}
		if err := adj.Adjust(r.Context(), c.l.opts.clock(), a); err != nil {
			errs = append(errs, fmt.Errorf("httplimit: plugin %s: %w", c.l.name, err))
		}
	}
	return errors.Join(errs...)
}
