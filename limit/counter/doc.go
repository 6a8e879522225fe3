// Package counter is rlpkit's rate-limit algorithms on a counter's state,
// and the stores that keep counters: everything needed to count hits against
// a limit, with nothing about where limits come from. It is the first floor
// of limit/ (how to count; see package limit for the other two). It imports only the
// standard library, so programs that only count (the HTTP middleware in
// limit/httplimit, the Redis store in limit/redis, a Go service limiting its
// own calls) link neither CEL nor a limits-file parser.
//
// It is not the place for limits files, conditions or Envoy's Rate Limit
// Service (RLS) semantics: package limit/limitador reads limitador's limits format and
// evaluates RLS requests on top of a Store from here, and package rls serves
// them over gRPC. It keeps no goroutines or globals; MemoryStore sweeps
// expired counters as it writes.
//
// # Algorithms
//
// Five algorithms share one contract. Each is a small value type
// (FixedWindow, SlidingWindow, TokenBucket, GCRA) whose Decide method is a
// pure function of a small State, the instant now and a cost, returning the
// new State and a Decision (allowed, used, remaining, reset-after,
// retry-after); InFlight counts concurrent holders and returns a release
// func. Time is always an argument. State never moves backwards when an older
// now arrives, so stale timestamps mint nothing (golang.org/x/time/rate lets
// them mint tokens). Policy bundles an Algorithm with its parameters and
// Limiter applies one to a single key, in the shape of
// golang.org/x/time/rate.Limiter.
//
// All algorithm arithmetic is on integer Unix microseconds and integer
// counts below 2^53, except the sliding window's estimates, which are IEEE
// doubles computed in a documented order; a Redis Lua script can reproduce
// every decision exactly.
//
// # Stores
//
// A Store applies one request's counter updates as a batch, all or nothing:
// when any counter would go over, none is incremented. MemoryStore is the
// in-process store: sharded, no global lock, expired counters swept a shard
// at a time, a bound on stored counters (DefaultMaxKeys, 1,000,000) that is
// never exceeded, and work per batch linear in the batch size, so that one
// large request holds its shards' locks only in proportion to its keys. It
// tells keys apart by 96 bits of two seeded hashes rather than by their
// bytes, which it does not keep: a decision over millions of counters reads
// one cache line, and two keys share a counter with a chance of at most
// 2^-84 per new key (see MemoryStore). The Redis store lives in limit/redis;
// the conformance checks every Store must pass are in
// limit/counter/storetest. A store that knows its backend to be unreachable
// refuses an update at once with an error wrapping ErrStoreDown, rather than
// spending the caller's time on a round trip that cannot succeed.
//
// # Where it differs from upstream
//
//   - The fixed window is aligned to the Unix epoch, as Envoy's reference
//     rate-limit service counts, or, with Policy.FirstHit, starts at each
//     window's first admitted hit, as limitador counts (a rejected hit
//     starts no window).
//   - The sliding window uses Cloudflare's proportional estimate by
//     default; Weighted with a Weight reproduces the fixed-weight formula
//     of pingap's limit plugin, (prev*(1-w)+curr*w)/interval. That plugin's
//     sliding window counts a rejected request; this one does not (a
//     rejected hit consumes nothing, for every algorithm).
//   - A check (cost 0) is over only when the counter already holds more
//     than its capacity, as in Envoy's reference service and limitador: a
//     full counter is not over. Counters here never count a rejected hit,
//     so a check is over only after a policy change on the same key (a
//     lowered Max, or hits admitted under a higher one, which is how
//     limit/envoyratelimit counts the rejected hits of a fixed window
//     over, as Envoy's reference service does); for every algorithm the
//     rule is the same: a check is
//     allowed when the counter with no more hits is within its capacity
//     (the window's hits, the sliding estimate, GCRA's arrival time ahead
//     of now; the token bucket never lacks more than its capacity, so a
//     check on it is always allowed).
//   - The token bucket and GCRA refill one token every ceil(window/max)
//     microseconds, so they never admit faster than max per window, and
//     rates above one hit per microsecond are capped there.
package counter
