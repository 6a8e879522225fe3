package limit

import "time"

// FixedWindow admits at most Max hits per window, windows aligned to the Unix
// epoch (a 60 s window starts on every whole minute), as Envoy's reference
// rate-limit service counts. The zero value admits nothing. A FixedWindow is a
// plain value; Decide is pure and safe for concurrent use.
type FixedWindow struct {
	// Max is the number of hits admitted per window, at most MaxPolicyValue.
	Max uint64
	// Window is the window's length, used at microsecond resolution.
	Window time.Duration
}

// Decide applies cost hits at now to s. See Policy.Decide for the contract.
//
// The math, in Unix microseconds t and window w: the window start is
// floor(t/w)*w; a start later than s.Time begins a new window with no hits;
// an earlier one (a stale now) counts in s's window, so state never moves
// backwards. The hits are admitted when Count+cost <= Max.
func (a FixedWindow) Decide(s State, now time.Time, cost uint64) (State, Decision) {
	w := windowMicros(a.Window)
	max := clampMax(a.Max)
	orig := s
	nowUs := now.UnixMicro()
	t := max64(nowUs, s.Time)
	if start := floorDiv(t, w) * w; start > s.Time {
		s = State{Time: start}
	}
	reset := s.Time + w - t
	d := Decision{Used: float64(addSat(s.Count, cost)), ResetAfter: micros(reset)}
	n := need(cost)
	if n <= sub(max, s.Count) {
		d.Allowed = true
		s.Count += cost
	} else if n > max {
		d.RetryAfter = micros(w)
	} else {
		d.RetryAfter = micros(reset)
	}
	d.Remaining = sub(max, s.Count)
	if !d.Allowed || cost == 0 {
		s = orig // nothing consumed: the state stays as it was
	}
	return s, skewed(d, t, nowUs, n > max)
}
