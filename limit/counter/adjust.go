package counter

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Adjuster is the part of the store contract that charges hits after the
// fact: what Limitador's Report and a reservation's settlement need. A
// store that serves check and report (package rls's
// kuadrant.service.ratelimit.v1 service) implements it; the memory store and
// limit/redis do, and storetest.RunAdjust checks them against
// Policy.Adjust.
type Adjuster interface {
	// Adjust applies every adjustment at now, each on its own counter as
	// Policy.Adjust does, without deciding anything: no adjustment is ever
	// refused for the counter being full, and a store applies each one
	// atomically with respect to concurrent Updates and Adjusts of the same
	// key (not all of them as one). It returns an error, having applied
	// none or some, when the store cannot answer or an adjustment is
	// invalid (an invalid policy, an algorithm Policy.Adjust refuses).
	Adjust(ctx context.Context, now time.Time, adjustments []Adjustment) error
}

// Adjustment is one counter change of Adjust.
type Adjustment struct {
	// Key names the counter, as in Update.
	Key string
	// Policy is the counter's algorithm and window; its Max plays no part.
	Policy Policy
	// Delta is the number of hits to add; negative gives hits back.
	Delta int64
	// ReleaseBefore bounds what a negative Delta gives back: hits are given
	// back only from a window that began at or before this instant (see
	// Policy.Adjust). The zero time means no bound.
	ReleaseBefore time.Time
}

// ErrAdjustAlgorithm is wrapped by the error of an Adjust on a counter whose
// algorithm cannot be charged after the fact.
var ErrAdjustAlgorithm = errors.New("only fixed and sliding window counters can be charged after the fact")

// Adjust returns s after adding delta hits at now under p, with no
// decision: the counter may go past p.Max (up to MaxPolicyValue, where it
// saturates) and never below zero. The window is the one now falls in, as
// Decide would find it (a stale now counts in s's window); a new window
// starts empty, so hits given back after their window ended give back
// nothing. A negative delta gives back hits only when that window began at
// or before releaseBefore (Unix µs; 0 means no bound): a caller giving back
// what it reserved at an instant it knows to be after releaseBefore never
// takes hits from a window its reservation was not counted in. Only the
// fixed window (either alignment) and the sliding window (its current
// window's hits) can be adjusted: the token bucket and GCRA refill in time,
// so hits charged late are not those of the time they were used, and
// Adjust returns an error wrapping ErrAdjustAlgorithm for them. The second
// result reports whether the state changed.
func (p Policy) Adjust(s State, now time.Time, delta int64, releaseBefore time.Time) (State, bool, error) {
	var rb int64
	if !releaseBefore.IsZero() {
		rb = releaseBefore.UnixMicro()
	}
	switch p.Algorithm {
	case AlgorithmFixedWindow, AlgorithmSlidingWindow:
	default:
		return s, false, fmt.Errorf("counter: %s: %w", p.Algorithm, ErrAdjustAlgorithm)
	}
	changed := p.adjust(&s, now.UnixMicro(), delta, rb)
	return s, changed, nil
}

// adjust is Adjust in place at nowUs, with releaseBefore in Unix µs (0: no
// bound), for an algorithm Adjust accepts. It reports whether *s changed.
func (p *Policy) adjust(s *State, nowUs, delta, releaseBefore int64) bool {
	w := windowMicros(p.Window)
	cur := *s
	t := max64(nowUs, cur.Time)
	switch {
	case p.Algorithm == AlgorithmSlidingWindow:
		if start := floorDiv(t, w) * w; start > cur.Time {
			var prev uint64
			if start-cur.Time == w {
				prev = cur.Count
			}
			cur = State{Time: start, Prev: prev}
		}
	case p.FirstHit:
		if cur.Count == 0 || t-cur.Time >= w {
			cur = State{Time: t}
		}
	default:
		if start := floorDiv(t, w) * w; start > cur.Time {
			cur = State{Time: start}
		}
	}
	switch {
	case delta > 0:
		cur.Count = min(addSat(cur.Count, uint64(delta)), MaxPolicyValue)
	case delta < 0 && cur.Count > 0 && (releaseBefore == 0 || cur.Time <= releaseBefore):
		cur.Count = sub(cur.Count, uint64(-delta))
	default:
		return false
	}
	*s = cur
	return true
}

// Adjust implements Adjuster: each adjustment under its own shard's lock.
// A counter given back to zero hits is kept until it expires as any other.
func (m *MemoryStore) Adjust(_ context.Context, now time.Time, adjustments []Adjustment) error {
	for i := range adjustments {
		a := &adjustments[i]
		if !validPolicy(a.Policy) {
			return fmt.Errorf("counter: adjustment %d (key %q): %s", i, a.Key, strings.Join(a.Policy.problems(), "; "))
		}
		if a.Policy.Algorithm != AlgorithmFixedWindow && a.Policy.Algorithm != AlgorithmSlidingWindow {
			return fmt.Errorf("counter: adjustment %d (key %q): %s: %w", i, a.Key, a.Policy.Algorithm, ErrAdjustAlgorithm)
		}
	}
	nowUs := now.UnixMicro()
	for i := range adjustments {
		m.adjustOne(nowUs, &adjustments[i])
	}
	return nil
}

// adjustOne applies one adjustment under its shard's lock.
func (m *MemoryStore) adjustOne(nowUs int64, a *Adjustment) {
	var rb int64
	if !a.ReleaseBefore.IsZero() {
		rb = a.ReleaseBefore.UnixMicro()
	}
	id, si := m.id(a.Key)
	sh := &m.shards[si]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sl := sh.find(id); sl != nil {
		s := sl.state()
		if a.Policy.adjust(&s, nowUs, a.Delta, rb) {
			sl.set(s, a.Policy.freshFrom(s))
		}
		return
	}
	t := sh.instant(nowUs, false)
	var s State
	if a.Policy.adjust(&s, t, a.Delta, rb) {
		sh.put(id, s, a.Policy.freshFrom(s), t, &m.lim, nil)
	}
}
