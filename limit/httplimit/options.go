package httplimit

import (
	"net/http"
	"net/netip"
	"time"

	"github.com/rlpkit/rlpkit/limit/counter"
)

// Option configures a Limiter (and every limiter of a Set).
type Option func(*options)

type options struct {
	store      counter.Store
	clock      func() time.Time
	trusted    []netip.Prefix
	onStoreErr func(*http.Request, error) bool
	errs       []string
}

// WithStore makes rate limiters keep their counters in s, for example the
// Redis store of limit/redis, so that several instances of a program share
// one budget. The default is a counter.MemoryStore per limiter: counters per
// process, so with N instances behind a load balancer a client gets up to N
// times the limit. A nil s keeps the default.
//
// Counter keys start with the plugin's name and change with its type, tag,
// key and interval; the request's value ends them, as it is when it has at
// most 128 bytes and no brace, else as its SHA-256, so that a client can
// neither make its counter's key huge nor choose its Redis Cluster hash tag.
//
// In-flight limiters ignore it: their counts are always per process, since a
// count shared across instances would need a lease that outlives a crashed
// instance, which counter.Store does not model. With Redis (package
// limit/redis):
//
//	client, _ := redis.NewClient("redis://10.0.0.5:6379/0")
//	store, _ := redis.New(client, redis.Options{KeyPrefix: "proxy:"})
//	set, err := httplimit.Load(data, httplimit.WithStore(store))
func WithStore(s counter.Store) Option {
	return func(o *options) { o.store = s }
}

// WithClock sets the clock rate limiters read; the default is time.Now. A nil
// clock keeps the default.
func WithClock(clock func() time.Time) Option {
	return func(o *options) { o.clock = clock }
}

// WithTrustedProxies makes tag "ip" look through the listed proxies: when the
// peer is in one of the prefixes, the client is the right-most address of
// X-Forwarded-For that is in none of them, every X-Forwarded-For header line
// read in order as one list. The left-most hop is never used while an
// untrusted one follows it: it is whatever the client wrote, and a client
// writing a fresh address into each request would never be limited. When
// every hop is trusted the left-most is used; a hop that is not an address
// stops the walk at the trusted proxy that wrote it. The Forwarded header
// (RFC 7239) is not read. Without it X-Forwarded-For is never read. IPv4-mapped IPv6 prefixes
// (::ffff:10.0.0.0/104) are taken as their IPv4 form, since addresses are.
// An invalid prefix makes New fail.
func WithTrustedProxies(prefixes ...netip.Prefix) Option {
	return func(o *options) {
		for _, p := range prefixes {
			if !p.IsValid() {
				o.errs = append(o.errs, "WithTrustedProxies: invalid prefix "+p.String())
				continue
			}
			if a := p.Addr(); a.Is4In6() && p.Bits() >= 96 {
				p = netip.PrefixFrom(a.Unmap(), p.Bits()-96)
			}
			o.trusted = append(o.trusted, p.Masked())
		}
	}
}

// WithStoreErrorHandler sets what happens when the store fails (a Redis
// server unreachable): f is called with the request and the error, for
// logging, and returns whether to let the request through unlimited. The
// default, and a nil f, rejects the request with 503 Service Unavailable and
// the body "rate limit unavailable" (a RoundTripper returns that response
// without calling the upstream), so a broken store is never silent.
func WithStoreErrorHandler(f func(r *http.Request, err error) (allow bool)) Option {
	return func(o *options) { o.onStoreErr = f }
}
