package counter

import "time"

// GCRA is the generic cell rate algorithm: a token bucket with burst Max and
// Max tokens per Window, kept as one timestamp, the theoretical arrival time
// (TAT). One hit costs T = ceil(Window/Max) microseconds of TAT; hits are
// admitted while TAT - now stays within Max*T. The zero value admits nothing.
// A GCRA is a plain value; Decide is pure and safe for concurrent use.
//
// All arithmetic is on integer microseconds. The TAT only grows, and a stale
// now only makes the check stricter, so stale timestamps mint nothing.
// Rounding T up means GCRA never admits faster than Max per Window; rates
// above one hit per microsecond are capped there.
type GCRA struct {
	// Max is the burst and the number of hits per Window, at most
	// MaxPolicyValue.
	Max uint64
	// Window is the period of Max, used at microsecond resolution.
	Window time.Duration
}

// Decide applies cost hits at now to s. See Policy.Decide for the contract.
func (a GCRA) Decide(s State, now time.Time, cost uint64) (State, Decision) {
	var d Decision
	max := clampMax(a.Max)
	w := windowMicros(a.Window)
	gcraStep(&s, now.UnixMicro(), cost, w, max, refillInterval(max, w), &d)
	return s, d
}

// gcraStep is GCRA.Decide at t with its parameters worked out (window w and
// emission interval per in microseconds, max clamped). It writes the
// decision to *d and changes *s only when hits are consumed.
func gcraStep(s *State, t int64, cost uint64, w int64, max uint64, per int64, d *Decision) {
	limit := int64(max) * per // the furthest TAT may run ahead of now
	tat := max64(s.Time, t)

	n := cost
	*d = Decision{Used: float64(tat-t)/float64(per) + float64(cost)}
	if n > max {
		d.RetryAfter = micros(w)
	} else if next := tat + int64(n)*per; next-t <= limit {
		d.Allowed = true
		if cost > 0 {
			tat = next
			s.Time = next
		}
	} else {
		d.RetryAfter = micros(next - t - limit)
	}
	if ahead := tat - t; ahead > 0 {
		d.ResetAfter = micros(ahead)
		if ahead < limit {
			d.Remaining = uint64((limit - ahead) / per)
		}
	} else {
		d.Remaining = max
	}
}

func max64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}
