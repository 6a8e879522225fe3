package redis

import (
	"context"
	"time"
)

// WithDeadline returns ctx carrying t as the deadline of a Store's round
// trips for an Update under it, when t comes before ctx's own deadline.
//
// It starts no timer, where context.WithDeadline starts one per context and
// stops it again on cancel: a server bounding every call to Redis that way
// spends a few microseconds of every decision on timers (the figure is in
// docs/performance.md). The Store sends the Update's script call under t
// instead: go-redis's dial, writes and reads (ContextTimeoutEnabled), and
// a pipeline shared with other calls (see Store), end at t or at the
// latest deadline of the calls it carries. A call queued behind a pipeline
// in flight waits for that pipeline, itself bounded by its own calls'
// deadlines, and returns at once only when ctx itself ends. Only Store
// reads t: other counter.Store implementations see ctx unchanged.
func WithDeadline(ctx context.Context, t time.Time) context.Context {
	if d, ok := ctx.Deadline(); ok && !t.Before(d) {
		return ctx
	}
	return context.WithValue(ctx, deadlineKey{}, t)
}

type deadlineKey struct{}

// boundContext is ctx with the earlier deadline WithDeadline gave it; its
// Done and Err stay ctx's.
type boundContext struct {
	context.Context
	deadline time.Time
}

// Deadline implements context.Context.
func (b *boundContext) Deadline() (time.Time, bool) { return b.deadline, true }

// bound returns the context an Update's round trips are made under: ctx,
// with the deadline WithDeadline gave it when that is earlier.
func bound(ctx context.Context) context.Context {
	t, ok := ctx.Value(deadlineKey{}).(time.Time)
	if !ok {
		return ctx
	}
	if d, has := ctx.Deadline(); has && !t.Before(d) {
		return ctx
	}
	return &boundContext{ctx, t}
}
