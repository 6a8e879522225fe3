package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/redis"
)

// backend is the counter store with what is needed to close it.
type backend struct {
	counter.Store
	kind  string
	redis []*redisPart // the Redis ones, in the order they are first reached: none for memory
	close func() error
}

// redisPart is one Redis of the backend: the main one or REDIS_PERSECOND's.
type redisPart struct {
	conn    redisConn
	client  goredis.UniversalClient
	breaker *redis.Breaker
	store   counter.Store
}

func (p *redisPart) close() error {
	p.breaker.Close()
	return p.client.Close()
}

// Redis's probes: at most maxProbeTimeout each (REDIS_TIMEOUT when shorter),
// and every checkInterval while Redis is up, so that its outages are logged
// (and, with REDIS_HEALTH_CHECK_ACTIVE_CONNECTION, the health checks fail)
// without traffic.
const (
	maxProbeTimeout = 500 * time.Millisecond
	checkInterval   = 5 * time.Second
)

// errMemcache is the answer to BACKEND_TYPE=memcache.
var errMemcache = errors.New("BACKEND_TYPE=memcache: memcache is not offered; use BACKEND_TYPE=redis, or BACKEND_TYPE=memory for a single instance")

// openBackend returns the store BACKEND_TYPE names. A Redis that goes
// down mid-run is not an error: calls fail until it answers again (no
// crash loop), at once while it is known down: each Redis's store is
// behind a breaker (limit/redis.Breaker), whose changes go to health.
// With REDIS_PERSECOND=true the per-second limits are counted in their
// own Redis (see perSecondStore), reached first at start, as the
// reference does.
func openBackend(s settings, log *slog.Logger, health *storeHealth) (*backend, error) {
	switch s.backendType {
	case "memcache":
		return nil, errMemcache
	case "memory":
		return &backend{Store: counter.NewMemoryStore(counter.MemoryOptions{}), kind: "memory", close: func() error { return nil }}, nil
	}
	// go-redis logs every failed dial to stderr; calls already fail and
	// count redis_error, so its lines are debug detail.
	goredis.SetLogger(redisLogger{log})
	main, err := openRedis(s, s.mainConn(), s.redisHook, health, "redis")
	if err != nil {
		return nil, err
	}
	be := &backend{Store: main.store, kind: "redis", redis: []*redisPart{main}}
	be.close = func() error {
		var errs []error
		for _, p := range be.redis {
			errs = append(errs, p.close())
		}
		return errors.Join(errs...)
	}
	if s.redis.perSecond {
		ps, err := openRedis(s, s.redis.perSecondConn, s.redis.perSecondHook, health, "redis_per_second")
		if err != nil {
			main.close()
			return nil, err
		}
		be.redis = []*redisPart{ps, main}
		be.Store = perSecondStore{perSecond: ps.store, other: main.store}
		if s.refKeys.reference() {
			// The reference's counting sends each counter to its own
			// Redis itself, as the reference does; no order to keep.
			store, err := openReferenceStore(s, main.client, main.breaker, ps)
			if err != nil {
				be.close()
				return nil, err
			}
			be.Store = timeoutStore{store, main.conn.timeout}
		}
	}
	return be, nil
}

// openRedis returns the client, breaker and store of the Redis c
// describes, hook added to its client when set, its changes told to health
// as name's.
func openRedis(s settings, c redisConn, hook goredis.Hook, health *storeHealth, name string) (*redisPart, error) {
	client, err := redisClient(s, c)
	if err != nil {
		return nil, err
	}
	if hook != nil {
		client.AddHook(hook)
	}
	breaker, err := redis.NewBreaker(client, redis.BreakerOptions{
		ProbeTimeout: min(c.timeout, maxProbeTimeout), CheckInterval: checkInterval,
		OnChange: health.changed(name), OnNodeChange: health.nodeChanged(name),
	})
	if err != nil {
		client.Close()
		return nil, err
	}
	health.watchNodes(name, breaker)
	var store counter.Store
	if s.refKeys.reference() {
		store, err = openReferenceStore(s, client, breaker, nil)
	} else {
		// Keys tagged by first entry may span tags: each is decided apart.
		store, err = redis.New(client, redis.Options{
			KeyPrefix: s.cacheKeyPrefix, Breaker: breaker, SplitHashTags: s.redisHashTag == limit.TagByFirstEntry,
			Window: c.window, BatchRequests: c.limit, Pipelines: c.pipelines(),
		})
	}
	if err != nil {
		breaker.Close()
		client.Close()
		return nil, err
	}
	return &redisPart{conn: c, client: client, breaker: breaker, store: timeoutStore{store, c.timeout}}, nil
}

// redisClient builds the go-redis client of c (REDIS_TYPE, REDIS_URL and
// the rest, or their REDIS_PERSECOND_ forms) as the reference reads them:
// a bare host:port (tcp), a socket path (unix) or a
// redis[s]://[user:password@]host:port[/db] URL; for a cluster,
// comma-separated seeds; for sentinel, the master's name then the
// sentinels, comma-separated, with REDIS_SENTINEL_AUTH for the sentinels
// and REDIS_AUTH (or the first address's credentials) for the master. TLS
// takes the REDIS_TLS_* files for either Redis, as the reference's.
func redisClient(s settings, c redisConn) (goredis.UniversalClient, error) {
	addrs, err := redisAddrs(c)
	if err != nil {
		return nil, err
	}
	user, password := addrs[0].user, addrs[0].password
	if c.auth != "" || !addrs[0].hasAuth {
		user, password = splitAuth(c.auth)
	}
	var tlsConfig *tls.Config
	if c.tls || addrs[0].tls {
		if tlsConfig, err = redisTLS(s); err != nil {
			return nil, err
		}
	}
	hosts := make([]string, len(addrs))
	for i, a := range addrs {
		hosts[i] = a.addr
	}
	switch c.typ {
	case "cluster":
		return goredis.NewClusterClient(&goredis.ClusterOptions{
			Addrs: hosts, Username: user, Password: password, TLSConfig: tlsConfig, PoolSize: c.poolSize,
			DialTimeout: c.timeout, ReadTimeout: c.timeout, WriteTimeout: c.timeout, ContextTimeoutEnabled: true, Protocol: redis.DefaultProtocol,
		}), nil
	case "sentinel":
		sentinelUser, sentinelPassword := splitAuth(c.sentinelAuth)
		return goredis.NewFailoverClient(&goredis.FailoverOptions{
			MasterName: hosts[0], SentinelAddrs: hosts[1:], Username: user, Password: password,
			SentinelUsername: sentinelUser, SentinelPassword: sentinelPassword, TLSConfig: tlsConfig,
			PoolSize: c.poolSize, DialTimeout: c.timeout, ReadTimeout: c.timeout, WriteTimeout: c.timeout,
			ContextTimeoutEnabled: true, Protocol: redis.DefaultProtocol,
		}), nil
	}
	return goredis.NewClient(&goredis.Options{
		Network: c.socketType, Addr: hosts[0], Username: user, Password: password, TLSConfig: tlsConfig, DB: addrs[0].db,
		PoolSize: c.poolSize, DialTimeout: c.timeout, ReadTimeout: c.timeout, WriteTimeout: c.timeout,
		ContextTimeoutEnabled: true, Protocol: redis.DefaultProtocol,
	}), nil
}

// splitAuth splits an AUTH variable as the reference does: "user:password",
// or a password alone.
func splitAuth(auth string) (user, password string) {
	if u, p, ok := strings.Cut(auth, ":"); ok {
		return u, p
	}
	return "", auth
}

// redisAddrs parses c's URL's addresses for its type; the first holds
// the credentials and scheme that count (for sentinel, the first
// sentinel's: the master's name is not an address).
func redisAddrs(c redisConn) ([]redisAddr, error) {
	parts := strings.Split(c.url, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	switch {
	case c.typ == "sentinel" && len(parts) < 2:
		return nil, fmt.Errorf("%s=%q: with %s=sentinel, want the master's name and one or more sentinels: name,host:port[,host:port...]", c.name("URL"), maskCredentials(c.url), c.name("TYPE"))
	case c.typ != "sentinel" && c.typ != "cluster" && (len(parts) != 1 || parts[0] == ""):
		return nil, fmt.Errorf("%s=%q: with %s=single, want one address", c.name("URL"), maskCredentials(c.url), c.name("TYPE"))
	}
	if c.typ == "single" {
		if err := checkSocketType(c, parts[0]); err != nil {
			return nil, err
		}
	}
	var out []redisAddr
	for i, p := range parts {
		if c.typ == "sentinel" && i == 0 {
			out = append(out, redisAddr{addr: p})
			continue
		}
		a, err := parseRedisAddr(p)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	if c.typ == "sentinel" {
		first := out[1]
		first.addr = out[0].addr
		out[0] = first
	}
	return out, nil
}

// redisTLS is the TLS configuration of REDIS_TLS_*.
func redisTLS(s settings) (*tls.Config, error) {
	c := &tls.Config{MinVersion: tls.VersionTLS12}
	if s.redisTLSCACert != "" {
		pool, err := certPool("REDIS_TLS_CACERT", s.redisTLSCACert)
		if err != nil {
			return nil, err
		}
		c.RootCAs = pool
	}
	if s.redisTLSCert != "" || s.redisTLSKey != "" {
		cert, err := tls.LoadX509KeyPair(s.redisTLSCert, s.redisTLSKey)
		if err != nil {
			return nil, fmt.Errorf("REDIS_TLS_CLIENT_CERT, REDIS_TLS_CLIENT_KEY: %w", err)
		}
		c.Certificates = []tls.Certificate{cert}
	}
	if s.redisTLSSkipVerifyHostname {
		// Verify the chain but not the name, as the reference's option does.
		c.InsecureSkipVerify = true
		roots := c.RootCAs
		c.VerifyConnection = func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("redis: server sent no certificate")
			}
			inter := x509.NewCertPool()
			for _, ic := range cs.PeerCertificates[1:] {
				inter.AddCert(ic)
			}
			_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter})
			return err
		}
	}
	return c, nil
}

// timeoutStore bounds every update by REDIS_TIMEOUT, so that a Redis that
// hangs fails calls rather than holding them. A call whose own deadline
// comes first (Envoy's rate limit filter gives each a timeout, 20ms by
// default) is bounded by it already: it keeps its context, without the
// derived one (its registration with the parent, its timer) that would
// change nothing but cost every decision.
type timeoutStore struct {
	counter.Store
	timeout time.Duration
}

func (s timeoutStore) Update(ctx context.Context, now time.Time, updates []counter.Update, decisions []counter.Decision) error {
	if d, ok := ctx.Deadline(); ok && time.Until(d) <= s.timeout {
		return s.Store.Update(ctx, now, updates, decisions)
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	return s.Store.Update(ctx, now, updates, decisions)
}

// redisLogger takes go-redis's log lines into the service's log at debug
// level.
type redisLogger struct{ log *slog.Logger }

func (l redisLogger) Printf(ctx context.Context, format string, v ...any) {
	l.log.DebugContext(ctx, "redis client", "detail", fmt.Sprintf(format, v...))
}
