package redis

import "time"

// The batching window (Options.Window): with one, a call that finds fewer
// than max pipelines in flight is not sent at once, alone, but queued, and
// the queue is sent as one pipeline when the window ends or as soon as it
// holds per calls (Options.BatchRequests), whichever comes first. One
// window is open at a time, from the first call of an empty queue. Calls
// queued while max pipelines are in flight are sent when a sender is free,
// as without a window: the round trip in flight was their window.

// stopper is a timer that can be stopped (*time.Timer).
type stopper interface{ Stop() bool }

// afterFunc starts a window's timer; tests replace it to end windows
// themselves.
var afterFunc = func(d time.Duration, f func()) stopper { return time.AfterFunc(d, f) }

// openWindow starts the window over the queue, unless one is open; p.mu
// must be held.
func (p *pipeliner) openWindow() {
	if p.timer != nil {
		return
	}
	p.gen++
	gen := p.gen
	p.timer = afterFunc(p.window, func() { p.windowEnded(gen) })
}

// closeWindow stops the open window, if any: its queue is being sent; p.mu
// must be held.
func (p *pipeliner) closeWindow() {
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
}

// windowEnded sends the queue when window gen is still the open one and a
// pipeline may start; otherwise a sender in flight takes the queue when it
// is done.
func (p *pipeliner) windowEnded(gen uint64) {
	p.mu.Lock()
	if gen != p.gen || p.timer == nil {
		p.mu.Unlock() // closed meanwhile: its queue was taken
		return
	}
	p.timer = nil
	if len(p.queue) == 0 || p.inFlight >= p.max {
		p.mu.Unlock()
		return
	}
	p.inFlight++
	p.mu.Unlock()
	p.send()
}
