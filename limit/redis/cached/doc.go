// Package cached is an approximate counter.Store on Redis for users who
// outgrow one Redis round trip per request: each instance decides fixed
// windows from its own view of the counters and writes the hits it admits
// to Redis in batches, as Limitador's "cached Redis" storage does. The
// error this buys is bounded, stated below and tested with several
// instances over one redis-server.
//
// It writes limit/redis's keys in limit/redis's format, so that exact and
// approximate servers can share one Redis and a user can switch one to the
// other without losing counts, and hands every batch it cannot approximate
// to a limit/redis Store.
//
// It is not exact: use limit/redis when a limit must never be exceeded.
//
// # How it decides
//
// A batch whose updates are all fixed windows (epoch-aligned or from the
// first hit; see Approximate) is decided in process, all or nothing, by
// counter.Policy.Decide over each counter's local view: the window and count
// Redis returned at the last flush that wrote the counter, plus the hits this
// instance admitted since. Every other batch goes to the exact store, one
// round trip. A flush sends every counter's pending hits and reads back the
// new values in one script call (on a Cluster, one per hash tag, in one
// pipeline), every Options.FlushPeriod (1 s), sooner when
// Options.BatchSize counters (100) have pending hits; Close flushes what is
// pending. Instances sharing a window from the first hit adopt the window
// Redis holds at their first flush, so that they end it together.
//
// Each counter has an allowance L (Options.MaxUnflushed, by default
// max(1, Max/10)): the most of its hits an instance holds that Redis has not
// acknowledged. A request that would go past it waits for a flush and is
// decided again from the refreshed view. Limitador has no such allowance:
// its error grows with the traffic between flushes; here it does not.
//
// # The error bound
//
// For one fixed-window counter of maximum M shared by N instances, with C
// the most hits one request puts on it and L' = max(L, C), while flushes
// succeed, within any one window:
//
//   - Never too few: a request is rejected only when the hits admitted in
//     its window by all instances, plus its cost, exceed M, since a view
//     never counts a hit that was not admitted.
//   - Never more than M + (N-1)*L' hits admitted: the instance whose
//     admitting view was refreshed last saw at most M, and every other
//     instance held at most L' unacknowledged hits since its own refresh.
//   - Never more than M + N*L' when the counter is also updated through the
//     exact path (limit/redis stores on the same Redis), which plays the
//     part of one more instance.
//
// An instance that restarts, or drops a counter of a running window to stay
// within Options.MaxCounters, counts as one more instance for that window.
// Tests with four instances over one redis-server reach M + 3L' exactly
// under an adversarial schedule and never exceed it. The exceptions are limit/redis's:
// a flush whose reply is lost writes its hits twice (towards rejecting), a
// Redis that loses its data forgets hits; keep clocks in step (NTP), since
// this store cannot use ServerTime.
//
// # When Redis is down
//
// A failed flush keeps its hits pending, reports the store down
// (Options.OnStateChange) and is retried. A request waits for a flush at
// most Options.FlushTimeout (350 ms, Limitador's response timeout), then is
// decided without it; while the store is down each instance enforces M alone
// on what it knows (at most N*M a window), and the first flush that succeeds
// writes the pending hits. With a limit/redis Breaker (Options.Redis.Breaker)
// flushes fail at once while Redis is known down, and its probe finds Redis
// back. At most Options.MaxCounters counters (10,000) are kept, each a copy
// of its key and a few numbers; when none can be dropped and Redis cannot be
// reached, Update returns an error rather than forget hits.
//
// A flush's faults stay with the counters that caused them (Flush says how).
//
// # Where it differs from Limitador
//
// Like Limitador's cached storage, a counter not in memory starts from an
// empty view (counted in N above) rather than costing a round trip.
// Limitador then has no bound on the hits an instance admits between
// flushes; this store has the allowance above, which makes the error a
// function of configuration rather than traffic. Limitador reads a
// counter's window from its key's TTL; here it is stored with the count, as
// limit/redis stores it. Other algorithms than the fixed window are decided
// exactly. Like limit/redis, a rejected hit is never counted and a batch is
// all or nothing within one instance.
package cached
