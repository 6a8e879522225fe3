package main

import (
	"errors"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/envoyratelimit"
	"github.com/rlpkit/rlpkit/limit/redis"
	"github.com/rlpkit/rlpkit/limit/redis/refcount"
)

// refKeys are the settings of RLPKIT_REDIS_KEYS=reference: the
// reference's keys and counting (limit/redis/refcount), so that a fleet
// moving from envoyproxy/ratelimit shares its budgets during the rollout.
type refKeys struct {
	format        envoyratelimit.KeyFormat // RLPKIT_REDIS_KEYS
	jitterMax     int                      // EXPIRATION_JITTER_MAX_SECONDS
	stopIncrement bool                     // STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT
	// jitter, when set, draws the TTL jitter; tests set it. No variable
	// does.
	jitter func(n int64) int64
	// clock, when set, gives the instant of every decision; tests set it
	// to share a window with a test double. No variable does.
	clock func() time.Time
}

// reference reports whether RLPKIT_REDIS_KEYS=reference.
func (k refKeys) reference() bool { return k.format == envoyratelimit.KeysReference }

// redisKeys reads RLPKIT_REDIS_KEYS and, in reference mode, the
// reference's counting variables that rlpkit's default store has no use
// for.
func (r *envReader) redisKeys(s *settings) {
	switch r.oneOf("RLPKIT_REDIS_KEYS", "rlpkit", "reference") {
	case "reference":
		s.refKeys.format = envoyratelimit.KeysReference
	default:
		s.refKeys.format = envoyratelimit.KeysRLPKit
		return
	}
	s.refKeys.stopIncrement = r.bool("STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT")
	if b := r.str("BACKEND_TYPE"); !strings.EqualFold(b, "redis") {
		r.errs = append(r.errs, errors.New("RLPKIT_REDIS_KEYS=reference: the reference's keys are Redis keys; it needs BACKEND_TYPE=redis, not "+b))
	}
}

// referenceKeysWarnings are the warnings of RLPKIT_REDIS_KEYS=reference:
// the variables that it does not use.
func (r *envReader) referenceKeysWarnings() []string {
	if _, set := r.lookup("RLPKIT_REDIS_HASH_TAG"); set {
		return []string{"RLPKIT_REDIS_HASH_TAG is ignored with RLPKIT_REDIS_KEYS=reference: the reference's keys carry no hash tag of rlpkit's"}
	}
	return nil
}

// openReferenceStore returns the store of RLPKIT_REDIS_KEYS=reference on
// client, with the local cache of LOCAL_CACHE_SIZE_IN_BYTES in it (the
// reference's, per counter; newServer then adds no other). With perSecond
// (REDIS_PERSECOND=true) the counters of one-second windows are kept in
// that Redis, as the reference keeps them.
func openReferenceStore(s settings, client goredis.UniversalClient, breaker *redis.Breaker, perSecond *redisPart) (counter.Store, error) {
	o := refcount.Options{
		KeyPrefix:                  s.cacheKeyPrefix,
		JitterMaxSeconds:           int64(s.refKeys.jitterMax),
		Jitter:                     s.refKeys.jitter,
		StopIncrementWhenOverLimit: s.refKeys.stopIncrement,
		LocalCacheBytes:            s.localCacheBytes,
		Breaker:                    breaker,
	}
	if perSecond != nil {
		o.PerSecondClient, o.PerSecondBreaker = perSecond.client, perSecond.breaker
	}
	return refcount.New(client, o)
}
