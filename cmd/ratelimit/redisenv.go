package main

import (
	"fmt"
	"maps"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// redisConn is how to reach one Redis and how to batch its calls: the main
// one (REDIS_*) or the per-second one (REDIS_PERSECOND_*).
type redisConn struct {
	prefix          string // "REDIS" or "REDIS_PERSECOND", to name variables
	socketType, url string
	typ             string // single, sentinel or cluster
	poolSize        int
	auth            string // REDIS_AUTH: password or user:password
	sentinelAuth    string // REDIS_SENTINEL_AUTH: the sentinels' own
	tls             bool
	timeout         time.Duration
	window          time.Duration // REDIS_PIPELINE_WINDOW: limit/redis Options.Window
	limit           int           // REDIS_PIPELINE_LIMIT: Options.BatchRequests, 0 its default
	parallelism     int           // REDIS_CLUSTER_PIPELINE_PARALLELISM, as given
}

// name is the variable of c's setting suffix ("URL": "REDIS_URL").
func (c redisConn) name(suffix string) string { return c.prefix + "_" + suffix }

// pipelines is limit/redis Options.Pipelines for c: on a Cluster,
// REDIS_CLUSTER_PIPELINE_PARALLELISM bounded by the pool as the reference
// bounds it (0 and anything above REDIS_POOL_SIZE mean REDIS_POOL_SIZE);
// elsewhere the store's default, one.
func (c redisConn) pipelines() int {
	if c.typ != "cluster" || c.parallelism == 1 {
		return 1
	}
	if c.parallelism == 0 || c.parallelism > c.poolSize {
		return c.poolSize
	}
	return c.parallelism
}

// redisSettings are the variables of the second Redis, of the clients'
// batching and of the first connection.
type redisSettings struct {
	perSecond     bool      // REDIS_PERSECOND
	perSecondConn redisConn // REDIS_PERSECOND_*
	// The main Redis's settings that settings has no field for.
	sentinelAuth string
	window       time.Duration
	limit        int
	parallelism  int
	startup      startupSettings
	// perSecondHook, when set, is added to the per-second Redis's
	// client; tests use it to count what is sent. No variable sets it.
	perSecondHook goredis.Hook
}

// startupSettings are REDIS_STARTUP_*: the first connection's backoff.
type startupSettings struct {
	initial, max time.Duration
	maxElapsed   time.Duration // 0: retry until Redis answers
}

// redisDefaults are the defaults of the variables read here, the
// reference's; they join implemented before any variable is read.
var redisDefaults = map[string]string{
	"REDIS_SENTINEL_AUTH": "", "REDIS_PIPELINE_WINDOW": "0", "REDIS_PIPELINE_LIMIT": "0",
	"REDIS_CLUSTER_PIPELINE_PARALLELISM": "1", "REDIS_POOL_ON_EMPTY_BEHAVIOR": "WAIT",
	"REDIS_PERSECOND": "false", "REDIS_PERSECOND_SOCKET_TYPE": "unix", "REDIS_PERSECOND_TYPE": "SINGLE",
	"REDIS_PERSECOND_URL": "/var/run/nutcracker/ratelimitpersecond.sock", "REDIS_PERSECOND_POOL_SIZE": "10",
	"REDIS_PERSECOND_AUTH": "", "REDIS_PERSECOND_TLS": "false", "REDIS_PERSECOND_SENTINEL_AUTH": "",
	"REDIS_PERSECOND_TIMEOUT": "10s", "REDIS_PERSECOND_PIPELINE_WINDOW": "0", "REDIS_PERSECOND_PIPELINE_LIMIT": "0",
	"REDIS_PERSECOND_CLUSTER_PIPELINE_PARALLELISM": "1", "REDIS_PERSECOND_POOL_ON_EMPTY_BEHAVIOR": "WAIT",
	"REDIS_STARTUP_INITIAL_INTERVAL": "1s", "REDIS_STARTUP_MAX_INTERVAL": "30s", "REDIS_STARTUP_MAX_ELAPSED_TIME": "0",
}

// redisIgnored are variables the reference's README names but its code
// does not read; setting one is reported at start.
var redisIgnored = map[string]string{
	"REDIS_POOL_ON_EMPTY_WAIT_DURATION":           "envoyproxy/ratelimit does not read it either: its pool always waits (REDIS_POOL_ON_EMPTY_BEHAVIOR=WAIT)",
	"REDIS_PERSECOND_POOL_ON_EMPTY_WAIT_DURATION": "envoyproxy/ratelimit does not read it either: its pool always waits (REDIS_PERSECOND_POOL_ON_EMPTY_BEHAVIOR=WAIT)",
}

func init() {
	maps.Copy(implemented, redisDefaults)
	maps.Copy(notImplemented, redisIgnored)
}

// redis reads redisSettings, after logAndBackend.
func (r *envReader) redis(s *settings) {
	rs := &s.redis
	rs.sentinelAuth = r.str("REDIS_SENTINEL_AUTH")
	rs.window = r.nonNegativeDuration("REDIS_PIPELINE_WINDOW")
	rs.limit = r.int("REDIS_PIPELINE_LIMIT", 0, 1<<20)
	rs.parallelism = r.int("REDIS_CLUSTER_PIPELINE_PARALLELISM", 0, 1<<20)
	useRedis := s.backendType == "redis"
	r.poolOnEmpty("REDIS_POOL_ON_EMPTY_BEHAVIOR", useRedis)
	rs.perSecond = r.bool("REDIS_PERSECOND")
	c := redisConn{prefix: "REDIS_PERSECOND"}
	c.socketType = r.oneOf(c.name("SOCKET_TYPE"), "unix", "tcp")
	c.typ = r.oneOf(c.name("TYPE"), "single", "sentinel", "cluster")
	c.url = r.str(c.name("URL"))
	c.poolSize = r.int(c.name("POOL_SIZE"), 1, 1<<20)
	c.auth, c.sentinelAuth = r.str(c.name("AUTH")), r.str(c.name("SENTINEL_AUTH"))
	c.tls = r.bool(c.name("TLS"))
	c.timeout = r.duration(c.name("TIMEOUT"))
	c.window = r.nonNegativeDuration(c.name("PIPELINE_WINDOW"))
	c.limit = r.int(c.name("PIPELINE_LIMIT"), 0, 1<<20)
	c.parallelism = r.int(c.name("CLUSTER_PIPELINE_PARALLELISM"), 0, 1<<20)
	r.poolOnEmpty(c.name("POOL_ON_EMPTY_BEHAVIOR"), useRedis && rs.perSecond)
	rs.perSecondConn = c
	rs.startup = startupSettings{
		initial:    r.duration("REDIS_STARTUP_INITIAL_INTERVAL"),
		max:        r.duration("REDIS_STARTUP_MAX_INTERVAL"),
		maxElapsed: r.nonNegativeDuration("REDIS_STARTUP_MAX_ELAPSED_TIME"),
	}
}

// mainConn is the main Redis's redisConn.
func (s settings) mainConn() redisConn {
	return redisConn{
		prefix: "REDIS", socketType: s.redisSocketType, url: s.redisURL, typ: s.redisType, poolSize: s.redisPoolSize,
		auth: s.redisAuth, sentinelAuth: s.redis.sentinelAuth, tls: s.redisTLS, timeout: s.redisTimeout,
		window: s.redis.window, limit: s.redis.limit, parallelism: s.redis.parallelism,
	}
}

// poolOnEmpty checks a POOL_ON_EMPTY_BEHAVIOR variable as the reference's
// client does when it is built (used): WAIT is what its pool does, CREATE
// and ERROR stop it at start, and anything else is reported and waits.
func (r *envReader) poolOnEmpty(name string, used bool) {
	v := r.str(name)
	switch strings.ToUpper(v) {
	case "WAIT":
	case "CREATE":
		if used {
			r.errs = append(r.errs, fmt.Errorf("%s=%s is not supported: the pool never opens connections beyond REDIS_POOL_SIZE and waits for one when all are in use, as envoyproxy/ratelimit's; remove it or set WAIT, and consider increasing the pool size", name, v))
		}
	case "ERROR":
		if used {
			r.errs = append(r.errs, fmt.Errorf("%s=%s is not supported: the pool waits for a connection when all are in use, as envoyproxy/ratelimit's, each call bounded by its timeout; remove it or set WAIT", name, v))
		}
	default:
		if used {
			r.warns = append(r.warns, fmt.Sprintf("%s=%q is not one of WAIT, CREATE, ERROR: the pool waits for a connection when all are in use (WAIT), as envoyproxy/ratelimit's", name, v))
		}
	}
}

// nonNegativeDuration reads a duration that may be 0.
func (r *envReader) nonNegativeDuration(name string) time.Duration {
	s := r.str(name)
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		r.errs = append(r.errs, fmt.Errorf("%s=%q: want a duration such as 0, 500us or 10s", name, s))
	}
	return d
}
