package counter

import "time"

// TokenBucket holds at most Max tokens (the burst) and refills Max tokens per
// Window, one token every ceil(Window/Max) microseconds. A hit of cost n takes
// n tokens. The zero value admits nothing. A TokenBucket is a plain value;
// Decide is pure and safe for concurrent use.
//
// All arithmetic is on integers: State.Count is the number of tokens missing
// from a full bucket and State.Time the instant up to which refills have been
// credited. A refill credits whole tokens and advances State.Time by exactly
// their refill time, so no fraction is lost or invented; a stale now credits
// nothing, so state never moves backwards and stale timestamps mint no
// tokens. Rounding the refill interval up means the bucket never refills
// faster than Max per Window; rates above one token per microsecond are
// capped there.
type TokenBucket struct {
	// Max is the bucket's capacity (the burst) and the tokens refilled per
	// Window, at most MaxPolicyValue.
	Max uint64
	// Window is the refill period of Max, used at microsecond resolution.
	Window time.Duration
}

// refillInterval returns the refill time of one token in microseconds.
func refillInterval(max uint64, w int64) int64 {
	if max == 0 {
		return w
	}
	return ceilDiv(w, int64(max))
}

// Decide applies cost hits at now to s. See Policy.Decide for the contract.
func (a TokenBucket) Decide(s State, now time.Time, cost uint64) (State, Decision) {
	w := windowMicros(a.Window)
	max := clampMax(a.Max)
	var d Decision
	tokenBucketStep(&s, now.UnixMicro(), cost, w, max, refillInterval(max, w), &d)
	return s, d
}

// tokenBucketStep is TokenBucket.Decide at nowUs with its parameters worked
// out (window w and refill interval per in microseconds, max clamped). It
// writes the decision to *d and changes *sp only when hits are consumed.
func tokenBucketStep(sp *State, nowUs int64, cost uint64, w int64, max uint64, per int64, d *Decision) {
	s := *sp
	t := max64(nowUs, s.Time)
	if s.Count > max {
		s.Count = max // a bucket cannot lack more than its capacity
	}
	if s.Count == 0 {
		s.Time = t
	} else if elapsed := t - s.Time; elapsed >= per {
		if credited := uint64(elapsed / per); credited >= s.Count {
			s = State{Time: t}
		} else {
			s.Count -= credited
			s.Time += int64(credited) * per
		}
	}

	n := cost
	*d = Decision{Used: float64(addSat(s.Count, cost))}
	if n <= sub(max, s.Count) {
		d.Allowed = true
		s.Count += cost
		if cost > 0 {
			*sp = s // only consumed hits change state
		}
	} else if n > max {
		d.RetryAfter = micros(w)
	} else {
		missing := s.Count + n - max
		d.RetryAfter = micros(int64(missing)*per - (t - s.Time))
	}
	d.Remaining = sub(max, s.Count)
	if s.Count > 0 {
		d.ResetAfter = micros(int64(s.Count)*per - (t - s.Time))
	}
	if t != nowUs {
		skew(d, t, nowUs, n > max)
	}
}
