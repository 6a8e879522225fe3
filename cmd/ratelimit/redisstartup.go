package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"time"
)

// startupClock is the time the first connection's retries wait on; tests
// replace it.
type startupClock struct {
	now   func() time.Time
	after func(time.Duration) <-chan time.Time
	rand  func() float64 // in [0, 1)
}

var realClock = startupClock{now: time.Now, after: time.After, rand: rand.Float64}

// errStartStopped is waitStartup's answer when ctx ends first.
var errStartStopped = errors.New("stopped while waiting for Redis")

// waitStartup waits, as the reference does before it opens any port,
// until every Redis of the backend answers a PING, the per-second one
// first: see connectAtStart. The memory backend does not wait.
func (be *backend) waitStartup(ctx context.Context, st startupSettings, log *slog.Logger, clock startupClock) error {
	for _, p := range be.redis {
		if err := connectAtStart(ctx, p.conn, p.breaker.Probe, st, log, clock); err != nil {
			return err
		}
	}
	return nil
}

// connectAtStart PINGs the Redis of c until it answers. After a failure it
// waits REDIS_STARTUP_INITIAL_INTERVAL, then intervals doubling up to
// REDIS_STARTUP_MAX_INTERVAL, each drawn at random between the initial
// interval and the doubled one (the reference's jittered backoff). It
// returns an error when a PING fails once REDIS_STARTUP_MAX_ELAPSED_TIME
// (when not 0) has passed since the first, and errStartStopped when ctx
// ends.
func connectAtStart(ctx context.Context, c redisConn, ping func(context.Context) error, st startupSettings, log *slog.Logger, clock startupClock) error {
	start := clock.now()
	addr := c.url
	if i := strings.LastIndexByte(addr, '@'); i >= 0 {
		addr = addr[i+1:] // no credentials in the log
	}
	for attempt := 0; ; attempt++ {
		err := ping(ctx)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return errStartStopped
		}
		elapsed := clock.now().Sub(start)
		if st.maxElapsed > 0 && elapsed >= st.maxElapsed {
			return fmt.Errorf("timed out waiting for Redis connection to %s (%s) after %s (REDIS_STARTUP_MAX_ELAPSED_TIME=%s): %v",
				addr, c.name("URL"), elapsed.Round(time.Millisecond), st.maxElapsed, err)
		}
		d := st.backoff(attempt, clock.rand)
		log.Warn("retrying the Redis connection before serving", "redis", addr, "variable", c.name("URL"),
			"in", d.String(), "elapsed", elapsed.Round(time.Millisecond).String(), "err", err.Error())
		select {
		case <-clock.after(d):
		case <-ctx.Done():
			return errStartStopped
		}
	}
}

// backoff is the wait after failed attempt n (from 0): the initial
// interval, then a random one between it and initial·2^n, at most the
// maximum interval.
func (st startupSettings) backoff(n int, random func() float64) time.Duration {
	if st.initial >= st.max {
		return st.max
	}
	top := float64(st.initial) * float64(uint64(1)<<min(n, 62))
	d := float64(st.initial) + random()*(top-float64(st.initial))
	if d >= float64(st.max) {
		return st.max
	}
	return time.Duration(d)
}
