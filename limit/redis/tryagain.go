package redis

import (
	"context"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// A Redis Cluster moving a slot (resharding) answers a multi-key command
// whose keys are split between the slot's old and new node with TRYAGAIN:
// the command did not run, and can run once the keys are moved. A script
// call answered TRYAGAIN is sent again, after a wait doubling from
// tryAgainFirst up to tryAgainMax, for as long as its deadline leaves room
// for the wait, at most tryAgainTimes times without one.
const (
	tryAgainFirst = 5 * time.Millisecond
	tryAgainMax   = 100 * time.Millisecond
	tryAgainTimes = 20
)

// isTryAgain reports whether err is a Cluster's TRYAGAIN.
func isTryAgain(err error) bool {
	return err != nil && goredis.HasErrorPrefix(err, "TRYAGAIN")
}

// tryAgainWait returns the wait before retry n (from 0) of a call under
// ctx, and false when its deadline, or the count of retries, leaves no
// room for it.
func tryAgainWait(ctx context.Context, n int) (time.Duration, bool) {
	d := min(tryAgainMax, tryAgainFirst<<min(n, 10))
	if deadline, ok := ctx.Deadline(); ok {
		return d, time.Until(deadline) > d
	}
	return d, n < tryAgainTimes
}

// sleepCtx waits d, or until ctx is done; it reports whether d passed.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// noRetry is a script call that go-redis must not send again by itself in
// a Cluster pipeline: go-redis resends every command of a node's share of
// a pipeline whose first command got a retryable answer (TRYAGAIN,
// LOADING, a connection error), those that ran included, which would count
// their hits twice. MOVED and ASK are still followed (the command did not
// run); the store retries TRYAGAIN itself (see retryTryAgain).
type noRetry struct{ *goredis.StringCmd }

// NoRetry implements goredis.Cmder.
func (noRetry) NoRetry() bool { return true }

// retryTryAgain sends again, in pipelines, the script calls of cb that
// Redis answered TRYAGAIN, while their deadline leaves room (see
// tryAgainWait); each keeps its last answer.
func (sd *sender) retryTryAgain(ctx context.Context, cb *combiner) {
	for n := 0; ; n++ {
		var again []int
		for g := range cb.groups {
			if isTryAgain(sd.cmds[g].Err()) {
				again = append(again, g)
			}
		}
		if len(again) == 0 {
			return
		}
		d, ok := tryAgainWait(ctx, n)
		if !ok || !sleepCtx(ctx, d) {
			return
		}
		for _, g := range again {
			calls := cb.groups[g]
			sd.cmds[g] = evalCmd(ctx, sd.eval[g].set(calls[0].script, false, cb.keys[g], cb.args[g]))
			sd.process(ctx, sd.cmds[g], true)
		}
		_, _ = sd.pipe.Exec(ctx)
		for _, g := range again {
			sd.eval[g].clear()
		}
	}
}
