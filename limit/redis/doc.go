// Package redis is a counter.Store on Redis, for rate limits shared by many
// gateway replicas or RLS servers: the counters of limit/counter's fixed
// window, sliding window (both estimates), token bucket and GCRA, kept in Redis
// through github.com/redis/go-redis/v9, with the same decisions as
// counter.MemoryStore for the same traffic.
//
// It is not a rate-limit service (package rls serves Envoy's protocol over
// limit.Evaluator and a Store) and has no in-flight limiter: counter.InFlight
// counts holders in process and is not a Store algorithm.
//
// # One round trip
//
// Every Store.Update is one EVALSHA of one Lua script, whatever the number
// of updates: the script reads every counter of the batch, decides whether
// all are admitted, writes the changed ones (all or none) with their TTL,
// and returns the states it read. The decisions (remaining, reset and retry
// durations, the estimates) are then computed in Go by counter.Policy.Decide
// over those states, so they are the memory store's by construction; the
// script only reproduces the admission test and the new states, in integer
// microseconds below 2^53 (exact in Lua's doubles) and, for the sliding
// window, in the double-precision order limit/counter documents. Should the
// two ever disagree, Update returns an error. When the server has lost the
// script (restart, SCRIPT FLUSH, failover) it answers NOSCRIPT and go-redis
// sends the script once with EVAL: two round trips, once per server.
//
// A batch of fixed windows only runs a smaller script, fixed.lua, with the
// same states and reply (the common case: envoyproxy/ratelimit and
// Limitador count in fixed windows); the others run update.lua.
//
// # Sharing round trips
//
// Concurrent Updates share round trips without waiting for each other: an
// Update that finds Options.Pipelines pipelines in flight waits in a queue,
// and the next pipeline sends every queued Update at once (on a Cluster, one
// pipeline per node). The queued Updates that share a script and, on a
// Cluster, a hash tag are decided by one script call, up to
// Options.BatchRequests of them (DefaultBatchRequests, 64): the script reads
// each distinct key once and decides the Updates one after the other in
// arrival order, each all or nothing on the states the ones before it left,
// as if each had been its own call in that order; it returns to each the
// states it saw, and each replays counter.Policy.Decide over them alone.
// Redis then runs one script, and the client encodes one command and parses
// one reply, for many decisions. The window that gathers them is the round
// trip in flight: no timer holds an Update back, so an Update waits at most
// for the pipeline ahead of it (a few hundred microseconds on a loopback or
// a LAN under load) and its own. An Update that finds nothing in flight
// first yields its processor once (runtime.Gosched), so that goroutines
// ready to run, such as concurrent gRPC calls already decoded, reach the
// store and queue behind it: they share its round trip rather than wait for
// the next (at 32 calls in flight, 0.10 round trips per decision instead of
// 0.15-0.18). Under no concurrency every Update is sent alone, after that
// one yield. Options.Window adds an explicit window, off by default: an
// Update that finds a pipeline free then waits up to Window for others, and
// the queue is sent when the window ends or once it holds BatchRequests
// Updates, trading up to Window of latency for larger batches at low
// concurrency. envoyproxy/ratelimit has such a window (its
// REDIS_PIPELINE_WINDOW, a write-flush interval, off by default) and
// pipelines INCRBY and EXPIRE commands rather than batching decisions into
// scripts. When Redis answers a script call with an error, every Update of
// that call gets it; a key holding something other than a counter fails only
// the Updates that touch it. An Update finding nothing in flight, and no
// other queued while it yielded, is sent alone under its own context; with
// others queued it goes first in their pipeline and waits for it as they do.
// One whose context ends while it waits returns and is not sent, or, when a
// pipeline already holds it, is sent and may count. A queued call is sent
// from copies of its keys made when it was queued, so a caller may reuse its
// keys' memory as soon as Update returns, whatever it returned
// (counter.Store's contract): a call is never sent with a key its caller did
// not ask for. An Update split by hash tag (Options.SplitHashTags, below) is
// sent at once, in a pipeline of its own, under its own context.
//
// # The client's own cost
//
// A script call is a go-redis command whose arguments are pointers to the
// strings it sends (the digest, the keys, ARGV), in a list its sender
// reuses, and whose reply is read as one string: the Update that fills it
// allocates nothing for it, and a pipeline allocates a handful of objects
// in go-redis (the command, its reply, go-redis's own bookkeeping) however
// many Updates it decides. A sender keeps its go-redis pipeline and
// scratch from one pipeline to the next, and a pipeline's context carries
// its callers' latest deadline without a timer of its own. With several
// Updates per script call, what a round trip costs the client (a system
// call each way, go-redis's check of the pooled connection) is shared by
// all of them; what is left per Update is its own arguments and reply and
// waiting for its pipeline. github.com/redis/rueidis, whose connections
// pipeline implicitly, was measured as the transport of these script calls:
// it spent a few per cent less CPU per decision in most runs, within the
// runs' spread, which does not weigh against leaving go-redis, whose
// client the store, its Breaker and the commands' Sentinel, Cluster, TLS
// and auth options are built on.
//
// # Keys and Redis Cluster
//
// The evaluators start every counter key with a Redis Cluster hash tag
// (see limit.TagBy), escaped so that Redis reads exactly the domain (and
// entry) it stands for. By default it is the request domain's, "{domain}":
// every key of a request lives in one Cluster slot, so every request is one
// script, all or nothing. The cost: a whole domain lives on one node.
// However many nodes the Cluster has, one domain's counters, their memory
// and every script call for them are on one primary, so a deployment whose
// traffic is mostly one domain gets one node's throughput for it.
//
// Tagged by the descriptor's first entry instead (limit.TagByFirstEntry,
// "{domain|key|value}"), one tenant's counters stay together and tenants
// spread over the nodes; a request whose descriptors start with different
// entries then has keys under several tags. A script can touch one slot
// only, so with any client other than a plain *redis.Client (a Cluster or
// Ring client, or a wrapper) Update refuses a batch whose keys have
// several hash tags, with an error naming two of them, unless
// Options.SplitHashTags lets it decide the batch one tag at a time: one
// script call per tag, all or nothing within the tag, the calls sent in
// one pipeline (go-redis sends each node its share at once). The trade-off
// is stated here once: a request spanning tags can be charged under one
// tag and refused under another. Its answer is still OVER_LIMIT when any
// of its counters is over; what it consumed is every counter of the tags
// whose counters all had room, and those decisions are marked
// counter.Decision.PartAdmitted (so that an evaluator letting the request
// through, in a shadow mode, does not count them again). Without
// SplitHashTags the store never splits a batch: that would lose the
// all-or-nothing guarantee silently. A standalone or Sentinel client
// (*redis.Client) takes any keys, and decides the whole batch in one
// script whatever the tags.
//
// Every written key gets a TTL (see Store), so idle counters disappear
// when their state no longer matters: a key outlives its window by the
// margin (Options.TTLMargin, 500 ms by default) and the rounding to a
// millisecond, no more. Forgetting a counter whose TTL has passed changes
// no decision: by then its state decides as a fresh counter does. The
// margin covers the store's clock lagging the clock of the one that wrote
// the key: another replica deciding at its own now, or, after a failover,
// a Redis whose clock is ahead (a replica keeps a key's expiry as an
// instant of the primary's clock). With Options.ServerTime every decision
// is at the clock of the Redis holding the key, the one its expiry is kept
// by, so there is no margin unless Options.TTLMargin sets one.
// envoyproxy/ratelimit sets a key's TTL to its whole window (its unit, plus
// a random jitter of up to EXPIRATION_JITTER_MAX_SECONDS) on every
// increment, so a key written near its window's end lives about a window
// longer than its count matters.
//
// # Time
//
// By default Update decides at its now argument, so tests inject a clock
// and replicas should keep their clocks in step (NTP). With
// Options.ServerTime the script reads the server's clock (Redis TIME),
// every replica agrees, and now is ignored. Instants must lie between 1970
// and 2112 (2^52 µs) for the arithmetic to stay exact; Update refuses
// others.
//
// # Failures
//
// Errors are returned, never taken as allowed or rejected: an unreachable
// server, a deadline, a key holding something else than a counter. Context
// deadlines bound an Update when the client was made with
// ContextTimeoutEnabled (NewClient does); WithDeadline gives one an earlier
// deadline for its round trips without the timer of context.WithDeadline,
// which a server bounding every decision would otherwise pay for (see
// WithDeadline for what it does not bound). A connection dropped after the
// script ran but before its reply arrived leaves the hits counted, and
// go-redis may then retry the script on a new connection, counting them
// twice: an outage errs towards rejecting, never towards admitting more.
//
// # Failing fast
//
// A Redis that is down costs every call its dials, go-redis's retries and
// their backoff (hundreds of milliseconds) before the error. A Breaker
// (Options.Breaker, shared by the stores of one client) remembers the outage
// instead: once a dial fails (refused, unreachable, a failed name lookup),
// every Update returns an error wrapping counter.ErrStoreDown at once, with
// no round trip, and a PING in the background (after 100 ms, then at
// doubling intervals up to 2 s, each within 500 ms) ends the outage when
// Redis answers. The Breaker also watches the client's dials, so the first
// refused connection is enough, while the call that met it still waits for
// go-redis's retries (or its deadline). While Redis is up it is PINGed every
// 5 s, so that an outage is known without traffic. These are the defaults of
// BreakerOptions.
//
// The choices, where a circuit breaker could go either way: a Redis that
// answers with an error (a script error, LOADING, a wrong type) is up; a
// call canceled by its caller says nothing; a timeout (the caller's
// deadline, a read timeout) is a slow Redis, not a proof of a dead one, so
// it makes the Breaker PING at once, and only that PING failing within its
// own timeout makes it down (a frozen Redis is then answered at once too;
// one merely slower than the callers' deadlines is not). So does a
// connection that ends or is reset under a call: after a restart of Redis, a
// connection of the pool from before it can outlive go-redis's check and
// fail one call, which is no outage; a Redis that is gone refuses the next
// dial, which is. A PING that answers ends the outage for every call at
// once, with no half-open trial call: the PING crossed the same client, pool
// and authentication, and a trial that waits for traffic would keep a server
// whose readiness failed (so that it gets none) down forever.
//
// On a Cluster the health is per master: a dead master fails at once only
// the calls whose hash tags it holds, while the other masters' calls keep
// their answers and their latency (each master has its own pipelines, one
// round trip per master per batch). Each probe reloads the map of slots
// and PINGs every master, so that once a replica is promoted in a dead
// master's place its slots answer again; Breaker.Nodes and
// BreakerOptions.OnNodeChange tell each master's changes. For the other
// masters to go on, the Cluster itself must serve them while one is down:
// cluster-require-full-coverage no (Redis's default, yes, refuses every
// slot while any is uncovered). A call in flight to a master (or Redis)
// when it is found down ends then with the Breaker's error rather than
// after go-redis's dial retries; a probe that runs out of time on failed
// dials names the dial's error.
//
// MOVED and ASK are followed (by go-redis, within the pipeline); a script
// call answered TRYAGAIN (its keys split by a slot's migration) is sent
// again, after a wait doubling from 5 ms to 100 ms, while its deadline
// allows. go-redis is told not to resend script calls itself on a Cluster,
// which it would do for a whole node's share of a pipeline whose first
// command got a retryable answer, counting the others twice.
//
// A failover loses the writes its new primary had not yet received
// (replication is asynchronous). Options.AckReplicas ends each pipeline
// with WAIT, failing the Updates whose writes too few replicas
// acknowledged, so that no admitted hit is among them, for a second round
// trip per pipeline (standalone and Sentinel clients).
//
// The script uses only Redis 5 features (EVALSHA, the struct library,
// effects replication for TIME); it is tested with Redis 7.
//
// # Where it differs from upstream
//
// The textbook Redis fixed window, a GET then an INCR, takes two round
// trips that race (two clients read the same count and both increment),
// and its keys never expire unless the limiter sets a TTL; here one
// atomic script both checks and counts, and every key expires. Unlike
// envoyproxy/ratelimit, a rejected hit is never counted by the store, and
// a request with several counters changes all or none of them
// (limit/envoyratelimit then counts the rejected hits of the fixed windows
// over in a second call, as the reference does with
// STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT=true).
package redis
