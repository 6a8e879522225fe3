package redis

import (
	"context"
	"errors"
	"io"
	"net"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rlpkit/rlpkit/limit/counter"
)

// loop probes Redis until Close: while it is down after a wait that
// doubles from ProbeInterval to MaxProbeInterval, while it is up every
// CheckInterval, and at once (at most once a ProbeInterval) when a timeout
// or a broken connection made it suspect.
func (b *Breaker) loop() {
	defer close(b.done)
	backoff := b.interval
	var last time.Time // when the last probe ended
	for {
		select {
		case <-b.kick: // a change made before this point is seen below
		default:
		}
		wait := time.Duration(-1) // none: only a change of state wakes the loop
		switch {
		case b.anyDown():
			wait = backoff
		case b.suspect.Load():
			wait = max(0, b.interval-time.Since(last))
		case b.check > 0:
			wait = b.check
		}
		var tick <-chan time.Time
		if wait >= 0 {
			tick = b.after(wait)
		}
		select {
		case <-b.ctx.Done():
			return
		case <-b.kick:
			continue
		case <-tick:
		}
		wasDown := b.anyDown()
		b.suspect.Store(false)
		err := b.Probe(b.ctx)
		last = time.Now()
		switch {
		case err == nil || !wasDown:
			backoff = b.interval
		default:
			backoff = min(2*backoff, b.maxWait)
		}
	}
}

// verdict is what an error of a round trip says about Redis.
type verdict int

const (
	verdictNone    verdict = iota // nothing: Redis answered, or the caller gave up
	verdictSuspect                // a timeout or a connection found broken: probe to know
	verdictDown                   // Redis cannot be reached: a dial failed
)

// classify tells what err, the result of a round trip or a dial, says
// about Redis. Only a failed dial (refused, unreachable, a failed name
// lookup) shows Redis cannot be reached. A connection that ends (EOF) or is
// reset under a call may be one the pool held across a restart of Redis
// (a restarted Redis leaves every pooled connection dead, and a stale one
// can outlive go-redis's check when it is taken), so it only makes the
// Breaker probe: a Redis that is gone fails the probe's dial at once.
func classify(err error) verdict {
	switch {
	case err == nil,
		errors.Is(err, counter.ErrStoreDown), // refused without trying
		errors.Is(err, goredis.ErrClosed),    // the program closed the client
		errors.Is(err, context.Canceled):     // the caller left
		return verdictNone
	case errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, goredis.ErrPoolTimeout),
		errors.Is(err, goredis.ErrPoolExhausted):
		return verdictSuspect
	}
	var reply goredis.Error
	if errors.As(err, &reply) {
		return verdictNone // Redis answered, with an error
	}
	var ne net.Error
	if errors.As(err, &ne) {
		if ne.Timeout() {
			return verdictSuspect
		}
		var op *net.OpError
		if errors.As(err, &op) && op.Op != "dial" {
			return verdictSuspect // a read or write of an established connection
		}
		return verdictDown
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return verdictSuspect
	}
	return verdictNone
}
