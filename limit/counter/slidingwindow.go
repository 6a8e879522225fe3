package counter

import (
	"math"
	"time"
)

// SlidingWindow admits at most Max hits in any window-long span, estimated
// from the hits of the current and the previous window (windows aligned to
// the Unix epoch). The zero value admits nothing. A SlidingWindow is a plain
// value; Decide is pure and safe for concurrent use.
//
// By default the estimate is proportional (Cloudflare's): the previous
// window's hits weighted by the part of it still inside the sliding span,
// plus the current window's hits:
//
//	estimate = prev*(w-elapsed)/w + curr
//
// and hits are admitted while estimate+cost <= Max.
//
// With Weighted set it reproduces pingap's limiter: with weight W = Weight/100
// and the interval I = Window in seconds,
//
//	value  = (prev*(1-W) + curr*W) / I
//	budget = Max / max(I, 1)
//
// and hits are admitted while value (counting them in curr) <= budget. Weight 0
// uses the previous window alone. Unlike pingap, a rejected hit is not
// counted, and a window counts at most MaxPolicyValue hits.
//
// The estimates are computed in IEEE double precision in exactly the order
// written above (explicit conversions stop the compiler from fusing
// operations), so a Lua script doing the same operations reproduces them bit
// for bit.
type SlidingWindow struct {
	// Max is the number of hits admitted per window, at most MaxPolicyValue.
	Max uint64
	// Window is the window's length, used at microsecond resolution.
	Window time.Duration
	// Weighted selects pingap's estimate instead of the proportional one.
	Weighted bool
	// Weight is the current window's weight in percent (0-100) when
	// Weighted is set.
	Weight uint8
}

// Decide applies cost hits at now to s. See Policy.Decide for the contract.
// A stale now (before the current window) is taken as the start of the
// current window, so state never moves backwards.
func (a SlidingWindow) Decide(s State, now time.Time, cost uint64) (State, Decision) {
	var d Decision
	a.step(&s, now.UnixMicro(), cost, windowMicros(a.Window), clampMax(a.Max), &d)
	return s, d
}

// step is Decide at nowUs with the window w in microseconds and max
// clamped. It writes the decision to *d and changes *sp only when hits are
// consumed.
func (a SlidingWindow) step(sp *State, nowUs int64, cost uint64, w int64, max uint64, d *Decision) {
	s := *sp
	t := max64(nowUs, s.Time)
	if start := floorDiv(t, w) * w; start > s.Time {
		prev := uint64(0)
		if start-s.Time == w {
			prev = s.Count
		}
		s = State{Time: start, Prev: prev}
	}
	elapsed := t - s.Time
	left := w - elapsed // time until the current window ends, in (0, w]
	n := cost

	if a.Weighted {
		*d = a.weighted(s, w, left, max, cost, n)
	} else {
		*d = a.proportional(s, w, elapsed, left, max, cost, n)
	}
	if d.Allowed {
		s.Count += cost
		if cost > 0 {
			*sp = s // only consumed hits change state
		}
	}
	switch {
	case s.Count > 0:
		d.ResetAfter = micros(left + w)
	case s.Prev > 0:
		d.ResetAfter = micros(left)
	}
	if !d.Allowed && d.RetryAfter <= 0 {
		d.RetryAfter = time.Microsecond
	}
	if t != nowUs {
		skew(d, t, nowUs, n > max)
	}
}

// proportional decides with Cloudflare's estimate.
func (a SlidingWindow) proportional(s State, w, elapsed, left int64, max, cost, n uint64) Decision {
	prevPart := float64(float64(float64(s.Prev)*float64(left)) / float64(w))
	estimate := func(curr uint64) float64 { return float64(prevPart + float64(curr)) }
	d := Decision{Used: estimate(addSat(s.Count, cost))}
	d.Allowed = n <= max && estimate(s.Count+n) <= float64(max)
	after := s.Count
	if d.Allowed {
		after += cost
	}
	d.Remaining = floorRemaining(float64(float64(max) - estimate(after)))
	if d.Allowed {
		return d
	}
	if n > max {
		d.RetryAfter = micros(w)
		return d
	}
	// Rejected but admissible some day. Within this window the previous
	// window's part decays; otherwise wait for the next window, where this
	// window's hits become the previous ones.
	room := float64(max) - float64(s.Count) - float64(n)
	if room >= 0 {
		// prev*(w-e)/w <= room  <=>  e >= w - room*w/prev
		e := float64(w) - float64(float64(room*float64(w))/float64(s.Prev))
		d.RetryAfter = micros(int64(math.Ceil(e)) - elapsed)
		return d
	}
	wait := left
	if s.Count > 0 {
		e := float64(w) - float64(float64(float64(max-n)*float64(w))/float64(s.Count))
		wait += int64(math.Ceil(e))
	}
	d.RetryAfter = micros(wait)
	return d
}

// weighted decides with pingap's fixed-weight estimate.
func (a SlidingWindow) weighted(s State, w, left int64, max, cost, n uint64) Decision {
	weight := float64(min(a.Weight, 100)) / 100
	interval := float64(w) / 1e6
	budget := float64(max) / math.Max(interval, 1)
	value := func(prev, curr uint64) float64 {
		p := float64(float64(prev) * (1 - weight))
		c := float64(float64(curr) * weight)
		return float64(p+c) / interval
	}
	d := Decision{Used: value(s.Prev, addSat(s.Count, cost))}
	// A window never counts more than MaxPolicyValue hits (with a weight
	// under 100 it may count more than Max).
	d.Allowed = n <= max && n <= sub(MaxPolicyValue, s.Count) && value(s.Prev, s.Count+n) <= budget
	after := s.Count
	if d.Allowed {
		after += cost
	}
	switch {
	case weight == 0 && value(s.Prev, 0) <= budget:
		d.Remaining = sub(max, after)
	case weight > 0:
		// Largest r with value(prev, after+r) <= budget.
		r := float64(float64(budget*interval)-float64(float64(s.Prev)*(1-weight))) / weight
		d.Remaining = floorRemaining(float64(r - float64(after)))
	}
	if d.Allowed {
		return d
	}
	if n > max {
		d.RetryAfter = micros(w)
		return d
	}
	// The estimate changes only at window boundaries.
	switch {
	case value(s.Count, n) <= budget:
		d.RetryAfter = micros(left)
	case value(0, n) <= budget:
		d.RetryAfter = micros(left + w)
	default:
		d.RetryAfter = micros(w)
	}
	return d
}

// floorRemaining converts a non-negative room to whole hits.
func floorRemaining(room float64) uint64 {
	if !(room > 0) {
		return 0
	}
	if room >= MaxPolicyValue {
		return MaxPolicyValue
	}
	return uint64(math.Floor(room))
}
