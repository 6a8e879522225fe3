package main

import (
	"log/slog"
	"sync"

	"github.com/rlpkit/rlpkit/internal/serving"
	"github.com/rlpkit/rlpkit/limit/redis"
)

// storeHealth is whether the Redis backend answers, as its breaker
// (limit/redis.Breaker) knows it: each change is logged once and, with
// REDIS_HEALTH_CHECK_ACTIVE_CONNECTION=true, fails gRPC health and
// /healthcheck while Redis is down, as the reference's option does. The
// memory backend is always up. With HEALTHY_WITH_AT_LEAST_ONE_CONFIG_LOADED
// both also fail until a configuration with at least one domain is loaded,
// and again when one without any is (every file removed, an empty xDS
// response), as the reference's "config" component does.
type storeHealth struct {
	log    *slog.Logger
	follow bool // REDIS_HEALTH_CHECK_ACTIVE_CONNECTION
	hs     *serving.Health

	mu       sync.Mutex      // orders changes and the health they set
	down     map[string]bool // the Redis known down, by name
	noConfig bool            // HEALTHY_WITH_AT_LEAST_ONE_CONFIG_LOADED and no domain loaded

	nodesMu  sync.Mutex                // guards breakers
	breakers map[string]*redis.Breaker // by store name, for the per-master metrics
}

func newStoreHealth(s settings, log *slog.Logger) *storeHealth {
	return &storeHealth{log: log, follow: s.redisHealthCheck, hs: serving.NewHealth("ratelimit"), noConfig: s.healthyWithConfig, down: map[string]bool{}}
}

// configLoaded is called at every configuration applied, with its number
// of domains; it matters only with HEALTHY_WITH_AT_LEAST_ONE_CONFIG_LOADED.
func (h *storeHealth) configLoaded(follow bool, domains int) {
	if !follow {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.noConfig = domains == 0
	h.publish()
}

// changed is the OnChange of the breaker of the Redis named store
// ("redis", or "redis_per_second" for REDIS_PERSECOND's): the health
// fails while any is down. The outage is an error and the recovery a
// warning, so that both show at the default LOG_LEVEL, WARN.
func (h *storeHealth) changed(store string) func(up bool, err error) {
	return func(up bool, err error) {
		h.mu.Lock()
		defer h.mu.Unlock()
		if up {
			h.log.Warn("store reachable again", "store", store)
			delete(h.down, store)
		} else {
			h.log.Error("store unreachable; calls fail at once until a PING answers", "store", store, "err", err.Error())
			h.down[store] = true
		}
		h.publish()
	}
}

// publish sets gRPC health from the state; h.mu must be held.
func (h *storeHealth) publish() {
	h.hs.Set(h.ok())
}

// ok is the health; h.mu must be held.
func (h *storeHealth) ok() bool { return (!h.follow || len(h.down) == 0) && !h.noConfig }

// start sets gRPC health for the first time.
func (h *storeHealth) start() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.publish()
}

// healthy reports whether the backend lets the health checks pass.
func (h *storeHealth) healthy() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.ok()
}

// why says what fails the health checks.
func (h *storeHealth) why() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.noConfig {
		return "no rate limit configuration loaded"
	}
	return "redis unreachable"
}
