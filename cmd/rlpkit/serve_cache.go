package main

import (
	"context"
	"flag"
	"log/slog"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/overlimitcache"
	"github.com/rlpkit/rlpkit/limit/redis"
	"github.com/rlpkit/rlpkit/limit/redis/cached"
)

// storeCacheOptions are the flags that keep answers or counts of the Redis
// store in process: the over-limit cache and the approximate mode.
type storeCacheOptions struct {
	// localCacheSize is the over-limit cache's budget in bytes (0: off),
	// as envoyproxy/ratelimit's LOCAL_CACHE_SIZE_IN_BYTES.
	localCacheSize int
	// redisApproximate selects limit/redis/cached, flushing every
	// redisFlushPeriod.
	redisApproximate bool
	redisFlushPeriod time.Duration
}

// addStoreCacheFlags defines the flags of storeCacheOptions on fs.
func addStoreCacheFlags(fs *flag.FlagSet, o *storeCacheOptions) {
	fs.IntVar(&o.localCacheSize, "local-cache-size", 0, "with --redis: remember fixed-window counters known to be full, in at most `BYTES`, and answer them over the limit without Redis until their window ends (0: off; envoyproxy/ratelimit's LOCAL_CACHE_SIZE_IN_BYTES)")
	fs.BoolVar(&o.redisApproximate, "redis-approximate", false, "with --redis: decide fixed windows in process and write their hits to Redis in batches (Limitador's cached Redis storage); servers together may admit more than a limit, by at most max(1, max/10) hits per extra server and window (see limit/redis/cached); at this server's clock, so not with --redis-server-time")
	fs.DurationVar(&o.redisFlushPeriod, "redis-flush-period", cached.DefaultFlushPeriod, "with --redis-approximate: how often hits are written to Redis")
}

// checkStoreCacheFlags reports a usage error for the flags of
// storeCacheOptions that do not fit the others; it turns the Redis clock off
// in approximate mode when it was only the default.
func checkStoreCacheFlags(o *serveOptions, fs *flag.FlagSet) error {
	c, src := &o.cache, o.sources
	switch {
	case c.localCacheSize < 0:
		return usagef("%s %d: want 0 or more", src.name("local-cache-size"), c.localCacheSize)
	case c.localCacheSize > 0 && o.redisURL == "":
		return usagef("%s saves calls to Redis; it needs --redis", src.name("local-cache-size"))
	case c.redisApproximate && o.redisURL == "":
		return usagef("%s counts in process and writes to Redis; it needs --redis", src.name("redis-approximate"))
	case isSet(fs, "redis-flush-period") && !c.redisApproximate:
		return usagef("%s needs --redis-approximate", src.name("redis-flush-period"))
	case c.redisFlushPeriod <= 0:
		return usagef("%s %v: want more than 0", src.name("redis-flush-period"), c.redisFlushPeriod)
	case c.redisApproximate && isSet(fs, "redis-server-time") && o.redisServerTime:
		return usagef("%s decides at this server's clock; it cannot use %s", src.name("redis-approximate"), src.name("redis-server-time"))
	}
	if c.redisApproximate {
		o.redisServerTime = false
	}
	return nil
}

// openRedisStore returns the Redis store on client: exact (limit/redis) or
// with --redis-approximate limit/redis/cached, and with --local-cache-size
// behind the over-limit cache, every one on ro.Breaker. Closing it flushes
// the approximate store's pending hits (within timeout), then closes the
// breaker and the client.
func openRedisStore(client goredis.UniversalClient, ro redis.Options, c storeCacheOptions, timeout time.Duration, log *slog.Logger) (*counterStore, error) {
	var store counter.Store
	closeStore := func() error {
		ro.Breaker.Close()
		return client.Close()
	}
	if c.redisApproximate {
		// The breaker, shared by the flushes, logs Redis's outages.
		approx, err := cached.New(client, cached.Options{Redis: ro, FlushPeriod: c.redisFlushPeriod})
		if err != nil {
			return nil, err
		}
		store = approx
		closeStore = func() error {
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			if err := approx.Close(ctx); err != nil {
				log.Warn("hits not written to Redis at stop", "err", err)
			}
			ro.Breaker.Close()
			return client.Close()
		}
		log.Info("approximate Redis counting", "flush_period", c.redisFlushPeriod)
	} else {
		exact, err := redis.New(client, ro)
		if err != nil {
			return nil, err
		}
		store = exact
	}
	if c.localCacheSize > 0 {
		store = overlimitcache.New(store, c.localCacheSize)
	}
	return &counterStore{Store: store, kind: "redis", close: closeStore}, nil
}
