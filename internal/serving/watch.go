package serving

import (
	"context"
	"time"
)

// Every calls f every interval until ctx is done; with an interval of 0 or
// less it returns at once and never calls f. f runs on Every's goroutine: a
// call that outlasts the interval delays the next one, and the ticks it
// spans are dropped, as time.Ticker drops them.
func Every(ctx context.Context, interval time.Duration, f func()) {
	if interval <= 0 {
		return
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			f()
		}
	}
}

// A Watcher polls a fingerprint, such as Fingerprint's description of some
// files, and reports when it changes. It polls rather than subscribing to
// file events, so it works alike on every file system.
type Watcher struct {
	// Interval is how often Look is called; 0 or less: never.
	Interval time.Duration
	// Look returns the fingerprint of what is watched.
	Look func() string
	// Settle, when true, reports a changed fingerprint only once it has
	// stayed the same for one more interval, so that files being written
	// are not read half-way; a fingerprint that returns to the last one
	// reported before it settles is no change. When false, every
	// fingerprint that differs from the last one is reported at once.
	Settle bool
	// Changed is called, on Run's goroutine, for each change reported.
	Changed func()
}

// Run polls until ctx is done. last is the fingerprint of what is in force:
// taken before it was loaded, a change made while loading, or before Run
// starts, is then reported too.
func (w Watcher) Run(ctx context.Context, last string) {
	pending := last // with Settle: the change waiting to settle, if not last
	Every(ctx, w.Interval, func() {
		fp := w.Look()
		switch {
		case fp == last:
			pending = last
		case w.Settle && fp != pending:
			pending = fp
		default:
			last, pending = fp, fp
			w.Changed()
		}
	})
}
