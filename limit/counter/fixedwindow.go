package counter

import "time"

// FixedWindow admits at most Max hits per window, windows aligned to the Unix
// epoch (a 60 s window starts on every whole minute), as Envoy's reference
// rate-limit service counts, or, with FirstHit, each window starting at the
// first hit counted in it, as limitador counts. The zero value admits
// nothing. A FixedWindow is a
// plain value; Decide is pure and safe for concurrent use.
type FixedWindow struct {
	// Max is the number of hits admitted per window, at most MaxPolicyValue.
	Max uint64
	// Window is the window's length, used at microsecond resolution.
	Window time.Duration
	// FirstHit starts a window at the first hit after the previous one ended
	// instead of at a multiple of Window since the epoch.
	FirstHit bool
}

// Decide applies cost hits at now to s. See Policy.Decide for the contract.
//
// The math, in Unix microseconds t and window w: the window start is
// floor(t/w)*w; a start later than s.Time begins a new window with no hits;
// an earlier one (a stale now) counts in s's window, so state never moves
// backwards. With FirstHit, s.Time is the start of the current window, and
// t >= s.Time+w begins a new window at t. The hits are admitted when
// Count+cost <= Max: a check (cost 0) is over only when the window already
// holds more than Max hits (after Max was lowered).
func (a FixedWindow) Decide(s State, now time.Time, cost uint64) (State, Decision) {
	var d Decision
	fixedWindowStep(&s, now.UnixMicro(), cost, windowMicros(a.Window), clampMax(a.Max), a.FirstHit, &d)
	return s, d
}

// fixedWindowStep is FixedWindow.Decide at nowUs with its parameters worked
// out (window w in microseconds, max clamped). It writes the decision to *d
// and changes *s only when hits are consumed.
func fixedWindowStep(s *State, nowUs int64, cost uint64, w int64, max uint64, firstHit bool, d *Decision) {
	cur := *s
	t := max64(nowUs, cur.Time)
	if firstHit {
		if cur.Count == 0 || t-cur.Time >= w {
			cur = State{Time: t}
		}
	} else if start := floorDiv(t, w) * w; start > cur.Time {
		cur = State{Time: start}
	}
	reset := cur.Time + w - t
	n := cost
	*d = Decision{Used: float64(addSat(cur.Count, cost)), ResetAfter: micros(reset)}
	if cur.Count <= max && n <= max-cur.Count {
		d.Allowed = true
		cur.Count += cost
		if cost > 0 {
			*s = cur // only consumed hits change state
		}
	} else if n > max {
		d.RetryAfter = micros(w)
	} else {
		d.RetryAfter = micros(reset)
	}
	d.Remaining = sub(max, cur.Count)
	if t != nowUs {
		skew(d, t, nowUs, n > max)
	}
}
