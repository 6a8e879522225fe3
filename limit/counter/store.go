package counter

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrStoreDown is wrapped by the error of an Update that a store refused
// at once, without trying its backend, because it knows the backend to be
// unreachable (see limit/redis's Breaker). Callers answer it as any store
// error (it is never allowed or rejected); errors.Is tells it from a
// failure that cost a round trip.
var ErrStoreDown = errors.New("store known to be down")

// Store keeps counter states and applies batches of updates to them.
//
// Update applies all updates of one request at now, in order, and writes
// one decision per update into decisions (which must be at least as long as
// updates). It is all-or-nothing: when every decision is allowed, every
// update's cost is consumed; when any is not, no counter changes, the
// allowed decisions are replaced by checks (the counters without this
// request), and the rejected ones stay as decided within the batch. Several
// updates may name the same key: each sees the ones before it. An update
// with cost 0 is a check (see Policy.Decide).
//
// A store its user has allowed to decide a batch in parts (limit/redis with
// Options.SplitHashTags, on a Redis Cluster, one part per hash tag) is all or
// nothing within each part only: a part with a rejected update changes no
// counter, a part whose updates are all allowed consumes its costs and marks
// their decisions PartAdmitted, whatever the other parts' decisions.
//
// Update returns an error, and no decisions, when the store cannot answer
// (a server unreachable, an invalid update); callers must not treat an error
// as allowed or rejected on their own. A store that knows its backend to be
// down answers at once with an error wrapping ErrStoreDown.
//
// A store may forget a counter only once its state decides as a fresh
// counter does under every policy of its algorithm and window, whatever
// their Max, sliding-window weight or fixed-window start, since a reload
// may change those and keep the counter's key (the evaluators' keys name
// the algorithm and the window): the end of its window (fixed window), of
// the window after it (sliding window), its TAT (GCRA), and for the token
// bucket a window and one microsecond per token taken, less one, after its
// time (the longest the taken tokens need to refill at any Max).
//
// Keys may alias memory the caller reuses (the evaluators build them with
// unsafe.String over pooled scratch): a caller may overwrite a key's bytes
// as soon as Update returns, whatever Update returned, a context error
// included. A store that keeps a key past Update, or may read it after
// Update returns (a pipeline or batch sent later, a cache of counters, a
// pending write), owns a copy made before Update returns; it must never
// count or remember a key its caller did not name.
//
// Implementations must be safe for concurrent use and must reproduce
// Policy.Decide exactly, so that the same traffic gets the same answers from
// every store. The Redis store (limit/redis) does it in one round trip with
// a Lua script.
type Store interface {
	Update(ctx context.Context, now time.Time, updates []Update, decisions []Decision) error
}

// CheckBatch returns the error a Store's Update gives for invalid input:
// decisions shorter than updates, or an update whose policy does not
// Validate. pkg starts the message ("limit/redis: update 3 (key ...): ...").
func CheckBatch(pkg string, updates []Update, decisions []Decision) error {
	if len(decisions) < len(updates) {
		return fmt.Errorf("%s: %d decisions for %d updates", pkg, len(decisions), len(updates))
	}
	for i := range updates {
		if err := updates[i].Policy.Validate(); err != nil {
			return fmt.Errorf("%s: update %d (key %q): %w", pkg, i, updates[i].Key, err)
		}
	}
	return nil
}

// Update is one counter change in a batch.
type Update struct {
	// Key names the counter. Keys built by the evaluators start with a
	// Redis Cluster hash tag (see limit.TagBy): "{domain}", shared by all
	// keys of a domain, or "{domain|key|value}", shared by the keys of one
	// first descriptor entry.
	Key string
	// Policy is the counter's algorithm and parameters.
	Policy Policy
	// Cost is the number of hits; 0 checks without consuming.
	Cost uint64
}
