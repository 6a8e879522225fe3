package main

import (
	"context"
	"time"
)

// pacer spreads an offered load of rate calls per second evenly over the
// callers of a phase: caller w of n starts its k-th call at
// start + (k·n + w)/rate, so that the calls of all callers are 1/rate
// apart. A caller whose previous call ended after its next call's slot
// starts that call at once; it never starts one early, so a run never sends
// more than its rate, and a server that cannot keep up shows it in
// decisions per second and in latency (measured from the slot, see wait)
// rather than in a lower offered load.
type pacer struct {
	start    time.Time
	interval time.Duration // between one caller's slots: n/rate
	offset   time.Duration // between caller w's first slot and caller w+1's: 1/rate
}

// newPacer returns the pacer of rate calls per second over n callers
// starting at start; nil for rate 0, a closed loop.
func newPacer(start time.Time, rate float64, n int) *pacer {
	if rate <= 0 {
		return nil
	}
	offset := time.Duration(float64(time.Second) / rate)
	return &pacer{start: start, interval: offset * time.Duration(n), offset: offset}
}

// slot returns when caller w starts its k-th call (from 0).
func (p *pacer) slot(w, k int) time.Time {
	return p.start.Add(time.Duration(w)*p.offset + time.Duration(k)*p.interval)
}

// wait waits until caller w's k-th slot, or returns at once when it has
// passed. It returns the slot when the caller is behind, so that the call's
// latency counts from there (the time a server's slowness kept the call
// waiting counts, as it would for a client sending at that rate), and the
// zero time when the caller waited, so that it counts from when the call
// is sent (the client's own timer lateness does not). It reports false
// when ctx ends first, so a caller never starts a call whose slot is past
// the end of its phase.
func (p *pacer) wait(ctx context.Context, w, k int) (late time.Time, ok bool) {
	due := p.slot(w, k)
	if end, ok := ctx.Deadline(); ok && !due.Before(end) {
		return time.Time{}, false // the slot is past the phase's end
	}
	d := time.Until(due)
	if d <= 0 {
		return due, true
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return time.Time{}, true
	case <-ctx.Done():
		return time.Time{}, false
	}
}
