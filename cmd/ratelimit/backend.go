package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"os"
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
	kind    string
	breaker *redis.Breaker // nil for memory
	close   func() error
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

// openBackend returns the store BACKEND_TYPE names. A Redis that does not
// answer is not an error: calls fail until it does (no crash loop), at once
// while it is known down: the store is behind a breaker
// (limit/redis.Breaker), whose changes go to health.
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
	client, err := redisClient(s)
	if err != nil {
		return nil, err
	}
	if s.redisHook != nil {
		client.AddHook(s.redisHook)
	}
	breaker, err := redis.NewBreaker(client, redis.BreakerOptions{
		ProbeTimeout: min(s.redisTimeout, maxProbeTimeout), CheckInterval: checkInterval, OnChange: health.changed,
	})
	if err != nil {
		client.Close()
		return nil, err
	}
	// Keys tagged by first entry may span tags: each is decided apart.
	store, err := redis.New(client, redis.Options{KeyPrefix: s.cacheKeyPrefix, Breaker: breaker, SplitHashTags: s.redisHashTag == limit.TagByFirstEntry})
	if err != nil {
		breaker.Close()
		client.Close()
		return nil, err
	}
	closeAll := func() error {
		breaker.Close()
		return client.Close()
	}
	return &backend{Store: timeoutStore{store, s.redisTimeout}, kind: "redis", breaker: breaker, close: closeAll}, nil
}

// redisClient builds the go-redis client of REDIS_TYPE, REDIS_URL and the
// rest, as the reference reads them: a bare host:port (tcp) or a socket
// path (unix); for a cluster, comma-separated host:port seeds; for
// sentinel, the master's name then the sentinels, comma-separated.
func redisClient(s settings) (goredis.UniversalClient, error) {
	user, password := "", s.redisAuth
	if u, p, ok := strings.Cut(s.redisAuth, ":"); ok {
		user, password = u, p
	}
	var tlsConfig *tls.Config
	if s.redisTLS {
		var err error
		if tlsConfig, err = redisTLS(s); err != nil {
			return nil, err
		}
	}
	parts := strings.Split(s.redisURL, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	network := s.redisSocketType
	switch s.redisType {
	case "cluster":
		return goredis.NewClusterClient(&goredis.ClusterOptions{
			Addrs: parts, Username: user, Password: password, TLSConfig: tlsConfig, PoolSize: s.redisPoolSize,
			DialTimeout: s.redisTimeout, ReadTimeout: s.redisTimeout, WriteTimeout: s.redisTimeout, ContextTimeoutEnabled: true, Protocol: redis.DefaultProtocol,
		}), nil
	case "sentinel":
		if len(parts) < 2 {
			return nil, fmt.Errorf("REDIS_URL=%q: with REDIS_TYPE=sentinel, want the master's name and one or more sentinels: name,host:port[,host:port...]", s.redisURL)
		}
		return goredis.NewFailoverClient(&goredis.FailoverOptions{
			MasterName: parts[0], SentinelAddrs: parts[1:], Username: user, Password: password, TLSConfig: tlsConfig,
			PoolSize: s.redisPoolSize, DialTimeout: s.redisTimeout, ReadTimeout: s.redisTimeout, WriteTimeout: s.redisTimeout,
			ContextTimeoutEnabled: true, Protocol: redis.DefaultProtocol,
		}), nil
	}
	if len(parts) != 1 || parts[0] == "" {
		return nil, fmt.Errorf("REDIS_URL=%q: with REDIS_TYPE=single, want one address", s.redisURL)
	}
	return goredis.NewClient(&goredis.Options{
		Network: network, Addr: parts[0], Username: user, Password: password, TLSConfig: tlsConfig,
		PoolSize: s.redisPoolSize, DialTimeout: s.redisTimeout, ReadTimeout: s.redisTimeout, WriteTimeout: s.redisTimeout,
		ContextTimeoutEnabled: true, Protocol: redis.DefaultProtocol,
	}), nil
}

// redisTLS is the TLS configuration of REDIS_TLS_*.
func redisTLS(s settings) (*tls.Config, error) {
	c := &tls.Config{MinVersion: tls.VersionTLS12}
	if s.redisTLSCACert != "" {
		pem, err := os.ReadFile(s.redisTLSCACert)
		if err != nil {
			return nil, fmt.Errorf("REDIS_TLS_CACERT: %w", err)
		}
		c.RootCAs = x509.NewCertPool()
		if !c.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("REDIS_TLS_CACERT=%s: no PEM certificate in the file", s.redisTLSCACert)
		}
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
