// Package cached is an approximate counter.Store on Redis for users who
// outgrow one Redis round trip per request: each instance decides fixed
// windows from its own view of the counters and writes the hits it admits
// to Redis in batches, as Limitador's "cached Redis" storage does. The
// error this buys is bounded, stated below and tested with several
// instances over one redis-server.
//
// The name follows Limitador's storage; the package sits under limit/redis
// because it is a mode of that store rather than a store of its own: it
// writes limit/redis's keys in limit/redis's format (a string
// "time count prev" with a TTL until its window ends, plus
// Options.Redis.TTLMargin),
// so that exact and approximate servers can share one Redis and a user can
// switch one to the other without losing counts, and it hands every batch
// it cannot approximate to a limit/redis Store.
//
// It is not exact: use limit/redis when a limit must never be exceeded.
//
// # How it decides
//
// A batch whose updates are all fixed windows (aligned to the epoch, as the
// Envoy reference service counts, or from the first hit, as limitador
// counts; see Approximate) is decided in process, all or nothing, by
// counter.Policy.Decide over each counter's local view: the window and
// count Redis returned at the last flush that wrote the counter, plus the
// hits this instance admitted since. No Redis command is sent, and the
// work done under the store's mutex is linear in the batch size, whatever
// keys the batch repeats (they are told apart by comparison up to 8
// updates, without allocating, and with a map above). Every other batch
// (with a sliding window, a token bucket or GCRA) goes to the exact store,
// one round trip, as without this package.
//
// A flush sends every counter's pending hits to Redis and reads back the
// counters' new values in one round trip: one call of one Lua script on a
// standalone server (on a Cluster, one call per hash tag, in one pipeline).
// The script adds the hits to the stored window, starts the window when the
// stored one is over, and drops hits of an epoch-aligned window Redis has
// already left. A window from the first hit starts, for an instance that
// has not flushed yet, at its own first hit; its first flush adds its hits
// to the window Redis holds, if one is running, and adopts it, so that the
// instances end the window together.
//
// Flushes run every Options.FlushPeriod (default 1 s, Limitador's), sooner
// when Options.BatchSize counters (default 100, Limitador's batch size) have
// pending hits, and when a request needs one (next paragraph). Close
// flushes what is pending.
//
// Each counter has an allowance L (Options.MaxUnflushed, by default
// max(1, Max/10)): the most of its hits an instance holds that Redis has
// not acknowledged. A request that would go past it waits for a flush (one
// round trip) and is decided again from the refreshed view; a request
// whose own hits on the counter exceed L (one update's cost, or several
// updates of the same key) is decided when the counter holds no
// unacknowledged hit from before it, since no flush can acknowledge hits
// not yet admitted. Limitador has no such allowance: its error grows with
// the traffic between flushes; here it does not.
//
// # The error bound
//
// Take one counter of a fixed window with maximum M (a window as Redis
// holds it), N instances of this store sharing it through one Redis, the
// allowance L, and C the most hits one request puts on the counter (the
// cost of its updates of that key: 1 for Envoy's default hits_addend and a
// descriptor sent once); let L' = max(L, C). While flushes succeed, within any one
// window:
//
//   - Never too few: a request is rejected only when the hits admitted in
//     its window by all instances, plus its cost, exceed M, as the exact
//     store would reject it. So when the window's traffic exceeds M (in
//     requests of cost 1), at least M are admitted. This holds because a
//     view never counts a hit that was not admitted: Redis's count and the
//     local hits are both parts of the window's admitted hits.
//   - Never more than M + (N-1)*L' hits admitted, when every update of the
//     counter goes through this store's local path. Why: take the instance
//     whose last admitting view was refreshed last, from Redis's count at
//     instant s. The hits in Redis at s plus its own since are at most M
//     (that view held them all). Every other hit had not reached Redis at
//     s; each other instance admitted none after its own next refresh
//     (else that refresh would be later than s), so its hits not in Redis
//     at s are hits it held unacknowledged at one time: at most L' each.
//   - Never more than M + N*L', when the counter is also updated through
//     the exact path (batches this store cannot approximate, or limit/redis
//     stores on the same Redis): such an update sees Redis but not the hits
//     the instances hold, so it plays the part of one more instance.
//
// N counts instances as views: an instance that restarts, or that drops a
// counter of a running window from memory to make room (only when more
// than Options.MaxCounters counters are in use) and meets it again, starts
// that counter from an empty view, as a new instance would, and so adds one
// to N for that window.
//
// The tests TestErrorBound* drive four instances over one redis-server with
// known traffic and explicit flushes, for both kinds of fixed window: an
// adversarial schedule reaches M + 3L' exactly, and random ones (costs of
// 1, up to 3, and above L) never exceed M + 3L' nor reject a request that
// fits under M.
//
// The exceptions are those of limit/redis: a flush whose reply is lost
// after the script ran (a dropped connection, a timeout) keeps its hits
// pending and writes them again, counting them twice (an error towards
// rejecting); a Redis that loses its data (a restart without persistence)
// forgets hits (an error towards admitting, bounded by what it lost). An
// instance whose clock lags counts in the window Redis returns, as the exact
// store counts a stale instant; keep clocks in step (NTP), as for
// limit/redis without ServerTime, which this store cannot use.
//
// # When Redis is down
//
// A failed flush keeps its hits pending, marks the store down (reported to
// Options.OnStateChange) and is retried at the next period (or batch). A
// request waits for a flush at most Options.FlushTimeout (default 350 ms,
// Limitador's response timeout) and is then decided without it. While the
// store is down, Update keeps deciding from the local views and no longer
// waits for flushes: each instance enforces M alone on what it knows, so
// the window's admitted hits are at most N*M (each instance's view starts
// from the count it last read). The first flush that succeeds writes the
// pending hits and ends it. Hits of a window that has ended by then may be
// dropped: no decision reads them any more.
//
// A flush's faults stay with the counters that caused them. On a Cluster,
// a hash tag whose script call fails keeps only its own hits pending; the
// other tags' are written once and acknowledged. A key holding something
// other than a counter (another type, another string) is left as it is:
// its hits, which cannot be written, are dropped, the other counters of
// the flush are written, and the Updates touching it go to the exact
// store, which fails them naming the key until it holds a counter again.
//
// With a limit/redis Breaker (Options.Redis.Breaker) the flushes report
// their failures to it, and while it knows Redis to be down they fail at
// once, as do the batches of the exact store, without a round trip; local
// decisions go on as above. Its probe, not a flush, finds Redis back; the
// next flush then writes the pending hits.
//
// Memory stays bounded: at most Options.MaxCounters counters (default
// 10,000, Limitador's) are kept, each its key and a few numbers. The key
// is a copy, so a caller may reuse its keys' memory once Update returns,
// and a later flush writes the keys that were asked for. When a new
// counter finds none to drop (every kept one holds unacknowledged hits of a
// running window) and Redis cannot be reached, Update returns an error
// rather than forget hits.
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
