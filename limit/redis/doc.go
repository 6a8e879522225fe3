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
// and returns the states it read. The decisions are then computed in Go by
// counter.Policy.Decide over those states, so they are the memory store's by
// construction; the script only reproduces the admission test and the new
// states, in integer microseconds below 2^53 (exact in Lua's doubles). Should
// the two ever disagree, Update returns an error. A batch of fixed windows
// runs a smaller script, fixed.lua; the others run update.lua. A server that
// lost the script answers NOSCRIPT and go-redis sends it once with EVAL.
//
// # Sharing round trips
//
// Concurrent Updates share round trips without waiting for each other: an
// Update that finds Options.Pipelines pipelines in flight queues, and the
// next pipeline sends the queue, whose Updates sharing a script (and hash
// tag) are decided by one script call, each all or nothing in arrival
// order. No timer holds an Update back unless Options.Window asks for one,
// as envoyproxy/ratelimit's REDIS_PIPELINE_WINDOW does.
//
// # Keys, Redis Cluster and time
//
// The evaluators start every counter key with a Redis Cluster hash tag (see
// limit.TagBy): by default the domain's, so every request is one script, all
// or nothing, and a whole domain lives on one node; tagged by the first
// descriptor entry, tenants spread over the nodes and a request may span
// tags, which a Cluster or Ring client refuses unless Options.SplitHashTags
// decides it one tag at a time (see there for what that costs). A
// standalone or Sentinel client decides any batch in one script.
//
// Every written key expires when its state is fresh again under any max
// (the algorithm and window decide, never max) plus Options.TTLMargin. By
// default Update decides at its now argument, so replicas keep their clocks
// in step; with Options.ServerTime the script reads Redis's clock.
//
// # Failures
//
// Errors are returned, never taken as allowed or rejected; an outage errs
// towards rejecting (a reply lost after the script ran leaves its hits
// counted), never towards admitting more. Deadlines bound an Update when
// the client was made with ContextTimeoutEnabled (NewClient does). A
// Breaker (Options.Breaker) remembers an outage: while Redis is known down
// every Update fails at once with an error wrapping counter.ErrStoreDown,
// until a PING in the background answers.
//
// # Redis Cluster
//
// On a Cluster the health is per master (see Breaker): a dead master fails
// at once only the calls whose hash tags it holds, while the others keep
// their answers and latency (each master has its own pipelines), until a
// probe finds its replica promoted. The Cluster must run with
// cluster-require-full-coverage no for the other masters to answer
// meanwhile. MOVED and ASK are followed, and TRYAGAIN during a slot's
// migration is retried while the call's deadline allows. A failover loses
// the writes not yet replicated; Options.AckReplicas bounds that loss.
//
// The scripts use only Redis 5 features (EVALSHA, the struct library,
// effects replication for TIME); they are tested with Redis 7.
//
// # Where it differs from upstream
//
// The textbook Redis fixed window, a GET then an INCR, takes two round trips
// that race; here one atomic script checks and counts, and every key expires
// when its count stops mattering (envoyproxy/ratelimit gives a key its whole
// window from every increment and pipelines INCRBY and EXPIRE). The store
// never counts a rejected hit, and changes all or none of a request's
// counters (limit/envoyratelimit counts the rejected hits of fixed windows
// over in a second call, as the reference with
// STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT=true).
package redis
