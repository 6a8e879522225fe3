// Package httplimit is the `limit` plugin of the pingap proxy, as pingap's
// plugin documentation describes it, for Go programs: a rate limiter
// (weighted sliding window) and an in-flight limiter, keyed by
// the client address, a header, a cookie or a query parameter, as a net/http
// middleware (step "request") and as an http.RoundTripper for
// httputil.ReverseProxy (step "proxy_upstream", so that responses served
// without reaching the upstream, from a cache in front, are not charged).
// Both share one implementation and one set of counters per plugin.
//
// Configuration has exactly pingap's keys and defaults (Config,
// DefaultConfig) and its validation rules (Config.Validate); ParseTOML reads
// pingap's `[plugins.NAME]` tables, several per file, and Load turns them
// into a Set that places each plugin by its step:
//
//	set, err := httplimit.Load(data)
//	proxy := &httputil.ReverseProxy{Rewrite: rewrite, Transport: set.RoundTripper(nil)}
//	srv := &http.Server{Handler: set.Handler(proxy)}
//
// It is not a general rate-limiting framework: it implements pingap's
// plugin and nothing else (no per-route limits, no quota headers, no
// RLS client). Use package limit/limitador for limits evaluated against RLS
// descriptors.
//
// # Behaviour
//
//   - A request whose key value is missing or empty is not limited. Over the
//     limit a request gets 429 with the body "exceed limit <value>/<max>"
//     and, for a rate limiter, Retry-After: the interval, rounded up to a
//     whole second. max = 0 rejects every request that has a key.
//   - rate uses counter.SlidingWindow in pingap's weighted mode:
//     value = (prev*(1-w) + curr*w) / interval against the budget
//     max / max(interval, 1) (seconds); weight 0 uses the previous window
//     alone. Windows are aligned to the Unix epoch.
//   - With the default weight of 50 a fresh key admits up to twice max in its
//     first interval, as pingap's formula does (the current window counts
//     half, and nothing came before): with max 10 and interval 10s, 30
//     requests an interval get 20, 0, 20, ... admitted. weight = 100 counts
//     the current window alone, for at most max an interval.
//   - Charge(r, n) lets a handler add n hits to the counters that admitted r once it has
//     answered (an LLM reply's tokens), without a decision; pingap has no such call.
//   - inflight holds a count while the request runs, released when the
//     handler returns (also when it panics) or, for a RoundTripper, when the
//     response body is closed or the round trip fails. A rejected request
//     holds no count.
//
// # Keys
//
// tag "ip" (the peer address, or behind trusted proxies the right-most
// untrusted X-Forwarded-For hop), "header", "cookie" and "query" are read as
// Tag says, exactly as net/http reads them.
//
// # Shared counters
//
// A rate limiter keeps its counters in a counter.MemoryStore of its own, so
// N instances behind a load balancer admit up to N times the limit, as
// pingap warns. WithStore takes any counter.Store (a Redis store of package
// limit/redis, which this package does not import), and every instance
// using the same store shares one budget per key. A store error rejects the request with 503 unless WithStoreErrorHandler
// lets it through. In-flight counts are always per process: with N
// instances a key may hold up to N times max requests at once.
//
// # Where it differs from pingap
//
//   - The over-limit body is "exceed limit <value>/<max>", without pingap's
//     "Plugin limit, " prefix.
//   - For rate, <value> is the sliding-window estimate in the unit of max:
//     the per-second estimate pingap compares times max(interval, 1), that
//     is prev*(1-w) + curr*w for intervals of a second or more, counting this
//     request, with at most two decimals ("exceed limit 600.5/600"). For
//     inflight it is the count including this request ("exceed limit 21/20").
//   - A rejected request is not counted by the rate limiter (pingap counts
//     it), so a client over its limit regains its budget as the window
//     slides, however fast it retries.
//   - max = 0 rejects everything for rate too, not only for inflight (pingap's
//     rate limiter with weight 0 would admit a whole first window).
//   - max is at most 4294967295 and interval at least a microsecond (the
//     resolution the window is counted at) and at most counter.MaxWindow, the
//     bounds of package limit/counter.
//   - category and max are required in the TOML form, and unknown keys are
//     errors: a typo must not silently fall back to a default.
//   - When several plugins apply, the request must pass them all in order;
//     a rejection by a later one releases earlier in-flight counts but does
//     not undo earlier rate counts.
package httplimit
