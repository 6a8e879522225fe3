// Package refcount is a counter.Store that counts in Redis exactly as
// envoyproxy/ratelimit does, so that rlpkit and reference instances on
// one Redis share every counter: a fleet can be moved from one to the
// other a replica at a time without a budget jump. cmd/ratelimit uses it
// with RLPKIT_REDIS_KEYS=reference, over keys built by
// limit/envoyratelimit with Options.Keys = envoyratelimit.KeysReference.
//
// # Counting
//
// An Update is one pipeline (one round trip): for every counter, INCRBY
// key cost then EXPIRE key with the window in seconds plus a random jitter
// in [0, Options.JitterMaxSeconds), the reference's
// EXPIRATION_JITTER_MAX_SECONDS. A counter is a plain integer. A
// counter is over when its value after the increment exceeds the limit
// (so a check, cost 0, of a counter exactly at its limit is within it);
// its remaining is the limit minus that value, 0 when over. The duration
// to reset is the window minus the current second's offset in it (windows
// are aligned to the Unix epoch and named by their start in the key).
//
// With Options.StopIncrementWhenOverLimit (the reference's
// STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT), a pipeline of GETs comes
// first (two round trips): when some counter would go over, only the
// counters that would go over are incremented (by their cost) and the
// others by 0, as the reference does; when none would, all are.
//
// With Options.LocalCacheBytes (the reference's LOCAL_CACHE_SIZE_IN_BYTES),
// a counter found over is remembered in the process for its window's
// length: it is then answered over without any command, while the
// request's other counters go to Redis (incremented by 0 when
// StopIncrementWhenOverLimit is set).
//
// With Options.PerSecondClient (the reference's REDIS_PERSECOND Redis),
// the counters of one-second windows go to that client: one pipeline on
// the main client, then one on the per-second one.
//
// # Where it differs from rlpkit's default store
//
// It does not follow counter.Store's all-or-nothing contract, on purpose:
// every update is its own part, counted whether or not the others are over,
// and a rejected update's cost is counted too (unless
// StopIncrementWhenOverLimit spares it). A request over one limit therefore
// still spends the budgets of its other descriptors, as with the
// reference (envoyproxy/ratelimit #427, #1060). Every admitted decision
// whose cost was added is marked counter.Decision.PartAdmitted, so that an
// evaluator letting a rejected request through (shadow or quota mode) does
// not count it a second time; one StopIncrementWhenOverLimit spared (added
// 0) is not, so that such an evaluator charges it in another Update. Only
// epoch-aligned fixed windows of whole seconds are counted (the reference's one algorithm); any other policy is an error.
// Updates are not batched across requests (limit/redis's Store shares
// script calls between concurrent requests); each is its own pipeline, as
// in the reference without REDIS_PIPELINE_WINDOW.
//
// # Where it differs from envoyproxy/ratelimit
//
// With STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT, the reference adds 0 to
// the counters with room of a request that has one going over, even when
// that one is a shadow_mode rule or a quota descriptor and the request is
// let through: its enforced limits are then never charged and admit
// without end. Here the evaluator charges them (above), and a limit of 5
// admits 5.
//
// The local cache is a map within a byte budget (each entry its key's
// length plus EntryOverhead), emptied of expired entries, then of
// arbitrary ones down to seven eighths of the budget, when full; the
// reference uses freecache, whose segments evict by their own rule. An
// entry holds the limit the counter was found over, and answers only
// under that limit or a lower one: after a reload raises the limit, the
// counter is counted in Redis again at once, where the reference keeps
// answering it over until its window ends. A Redis that fails a pipeline
// fails the Update with an error (the reference panics the call, with the
// same effect on the caller).
package refcount
