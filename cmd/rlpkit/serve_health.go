package main

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/rlpkit/rlpkit/limit/redis"
)

const (
	// maxPingTimeout bounds one PING of Redis (--redis-timeout when shorter).
	maxPingTimeout = 500 * time.Millisecond
	// readyCacheTTL is how long a readiness PING's answer is reused, so that
	// probes do not hammer Redis.
	readyCacheTTL = time.Second
	// pingInterval is how often Redis is pinged while it is up and nothing
	// else asks, so that gRPC health and the log follow Redis without
	// traffic.
	pingInterval = 5 * time.Second
)

// storeHealth is whether the counter store answers. For Redis its one
// source is the store's breaker (limit/redis.Breaker), which every call,
// flush and PING informs; the memory store always answers. Each change is
// logged once, by the breaker's OnChange, and passed to the watcher.
type storeHealth struct {
	kind    string         // "memory" or "redis", for logs
	breaker *redis.Breaker // nil: the memory store
	// follows says whether readiness and gRPC health follow the store:
	// not with --redis-approximate, which answers without Redis.
	follows bool
	log     *slog.Logger

	mu    sync.Mutex // serializes changes, so the watcher sees them in order
	watch func(reachable bool)

	pingMu sync.Mutex // one readiness PING at a time
	pinged time.Time  // when the last readiness PING answered; under pingMu
}

func newStoreHealth(kind string, breaker *redis.Breaker, follows bool, log *slog.Logger) *storeHealth {
	return &storeHealth{kind: kind, breaker: breaker, follows: follows, log: log}
}

// changed is the breaker's OnChange: it logs the change and tells the
// watcher.
func (h *storeHealth) changed(up bool, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case up:
		h.log.Info("store reachable again", "store", h.kind)
	case h.follows:
		h.log.Error("store unreachable; calls answer Unavailable at once until a PING answers", "store", h.kind, "err", err.Error())
	default:
		h.log.Error("store unreachable; fixed windows are decided in process and their hits kept, other calls answer Unavailable at once, until a PING answers", "store", h.kind, "err", err.Error())
	}
	if h.watch != nil {
		h.watch(up)
	}
}

// start learns the first state (by a PING for Redis, logged when it fails)
// and tells it to watch, then every change.
func (h *storeHealth) start(ctx context.Context, watch func(reachable bool)) {
	if h.breaker != nil {
		h.breaker.Probe(ctx)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.watch = watch
	watch(h.breaker.Err() == nil)
}

// ready reports whether the store answers: nil, or why not. While Redis is
// up it PINGs, unless a PING answered within readyCacheTTL; while it is
// down it answers from the breaker, whose own PINGs end the outage. With
// --redis-approximate it is always ready.
func (h *storeHealth) ready(ctx context.Context) error {
	if h.breaker == nil || !h.follows {
		return nil
	}
	if h.breaker.Err() == nil {
		h.pingNow(ctx)
	}
	return h.breaker.Err()
}

// pingNow PINGs Redis through the breaker, unless a PING answered within
// readyCacheTTL.
func (h *storeHealth) pingNow(ctx context.Context) {
	h.pingMu.Lock()
	defer h.pingMu.Unlock()
	if time.Since(h.pinged) < readyCacheTTL {
		return
	}
	if h.breaker.Probe(ctx) == nil {
		h.pinged = time.Now()
	}
}
