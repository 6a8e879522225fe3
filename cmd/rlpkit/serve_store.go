package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/redis"
)

// counterStore is the store serve keeps its counters in, with what it needs
// to describe, follow and close it.
type counterStore struct {
	counter.Store
	kind   string       // "memory" or "redis"
	health *storeHealth // whether it answers, from its Redis breaker
	close  func() error
}

// openStore returns the memory store, or with --redis the Redis store behind
// a breaker (limit/redis.Breaker), which answers calls at once while Redis is
// known down and is the one source of the store's state (see storeHealth). A
// Redis that does not answer yet is not an error: the server starts, answers
// Unavailable and is not ready until Redis answers.
func openStore(o serveOptions, log *slog.Logger) (*counterStore, error) {
	if o.redisURL == "" {
		mem := counter.NewMemoryStore(counter.MemoryOptions{MaxKeys: o.maxKeys})
		return &counterStore{Store: mem, kind: "memory", health: newStoreHealth("memory", nil, true, log), close: func() error { return nil }}, nil
	}
	// go-redis logs every failed dial; the store's changes of state are
	// logged by storeHealth, so its own lines are debug detail.
	goredis.SetLogger(redisLogger{log})
	client, err := redis.NewClient(o.redisURL)
	if err != nil {
		return nil, usagef("%s: %v", o.sources.name("redis"), err)
	}
	if o.redisHook != nil {
		client.AddHook(o.redisHook)
	}
	// The approximate store answers fixed windows without Redis: readiness
	// does not follow it.
	health := newStoreHealth("redis", nil, !o.cache.redisApproximate, log)
	breaker, err := redis.NewBreaker(client, redis.BreakerOptions{
		ProbeTimeout: min(o.storeTimeout, maxPingTimeout), CheckInterval: pingInterval, OnChange: health.changed, OnNodeChange: health.nodeChanged,
	})
	if err != nil {
		client.Close()
		return nil, usagef("%v", err)
	}
	health.breaker = breaker
	// Keys tagged by first entry may span tags: each is decided apart.
	ro := redis.Options{KeyPrefix: o.redisKeyPrefix, ServerTime: o.redisServerTime, Breaker: breaker, SplitHashTags: o.redisHashTag == limit.TagByFirstEntry}
	o.pipeline.apply(&ro)
	cs, err := openRedisStore(client, ro, o.cache, o.storeTimeout, log)
	if err != nil {
		breaker.Close()
		client.Close()
		return nil, usagef("%v", err)
	}
	cs.health = health
	return cs, nil
}

// boundedStore gives every update at most timeout, so that a Redis that hangs
// does not hold calls whose callers set no deadline (or a longer one). When
// the caller has a deadline, the update gets nine tenths of the time left
// (keeping at most maxAnswerReserve for the answer to travel back), so that a
// Redis that cannot be reached is answered Unavailable while the caller still
// listens, rather than leaving it to time out.
//
// For limit/redis's store the bound is redis.WithDeadline, a deadline
// without a timer on the update's round trips (a timer per decision is work
// on every call); other stores (the approximate one) get a
// context.WithTimeout.
type boundedStore struct {
	counter.Store
	timeout time.Duration
	timer   bool // the store does not read redis.WithDeadline
}

const maxAnswerReserve = 100 * time.Millisecond

func (s boundedStore) Update(ctx context.Context, now time.Time, updates []counter.Update, decisions []counter.Decision) error {
	start := time.Now()
	budget := s.timeout
	if d, ok := ctx.Deadline(); ok {
		budget = s.budget(d.Sub(start))
	}
	if !s.timer {
		return s.Store.Update(redis.WithDeadline(ctx, start.Add(budget)), now, updates, decisions)
	}
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	return s.Store.Update(ctx, now, updates, decisions)
}

// budget is the time an update may take when the caller's deadline is left
// away.
func (s boundedStore) budget(left time.Duration) time.Duration {
	return min(s.timeout, left-max(0, min(left/10, maxAnswerReserve)))
}

// redisLogger takes go-redis's log lines (a process-wide setting) into serve's
// log at debug level.
type redisLogger struct{ log *slog.Logger }

func (l redisLogger) Printf(ctx context.Context, format string, v ...any) {
	l.log.DebugContext(ctx, "redis client", "detail", fmt.Sprintf(format, v...))
}
