package counter

import (
	"sync"
	"time"
)

// Limiter is one counter under one Policy, for a single key: the shape of
// golang.org/x/time/rate.Limiter for any of the window algorithms. Every
// method has an explicit-time form; Allow uses the limiter's clock. A Limiter
// is safe for concurrent use; create it with NewLimiter.
type Limiter struct {
	mu     sync.Mutex
	state  State
	policy Policy
	clock  func() time.Time
	// The token bucket's parameters, worked out once.
	window, per int64
	max         uint64
}

// NewLimiter returns a limiter for p whose convenience methods read
// time.Now. It returns an error when p is invalid.
func NewLimiter(p Policy) (*Limiter, error) {
	return NewLimiterWithClock(p, time.Now)
}

// NewLimiterWithClock is NewLimiter with an injected clock for Allow.
func NewLimiterWithClock(p Policy, clock func() time.Time) (*Limiter, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	l := &Limiter{policy: p, clock: clock, window: windowMicros(p.Window), max: clampMax(p.Max)}
	l.per = refillInterval(l.max, l.window)
	return l, nil
}

// AllowN applies cost hits at now and returns the decision (cost 0 checks
// without consuming). A now older than one seen before never moves the
// state backwards.
func (l *Limiter) AllowN(now time.Time, cost uint64) Decision {
	l.mu.Lock()
	var d Decision
	if l.policy.Algorithm == AlgorithmTokenBucket {
		tokenBucketStep(&l.state, now.UnixMicro(), cost, l.window, l.max, l.per, &d)
	} else {
		l.policy.step(&l.state, now.UnixMicro(), cost, &d)
	}
	l.mu.Unlock()
	return d
}

// Allow reports whether one hit is admitted now, by the limiter's clock.
func (l *Limiter) Allow() bool {
	return l.AllowN(l.clock(), 1).Allowed
}

// Policy returns the limiter's policy.
func (l *Limiter) Policy() Policy { return l.policy }
