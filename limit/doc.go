// Package limit is the enforcement core of rlpkit: the counting algorithms a
// rate-limit service and an HTTP middleware use.
//
// # Limits
//
// A Limit is {namespace, max_value, seconds, conditions, variables, name,
// algorithm} in limitador's file format; its identity is (namespace,
// seconds, conditions as a set, variables as a set). DecodeLimits reads a
// list of limits from JSON, strictly, and reports every problem at once with
// field paths ("[1].seconds: must be greater than 0"). YAML files are
// converted to JSON by the caller (rlpkit's yamljson.ToJSON); this package
// reads no YAML.
//
// # Conditions
//
// A limit's conditions are either the legacy KEY == VALUE / KEY != VALUE
// form, matched directly, or CEL expressions over descriptors (a list of
// string maps, as limitador 2.x writes them), compiled once with
// github.com/google/cel-go under a cost limit. A condition on a missing key
// is false.
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
// them mint tokens). Policy bundles an algorithm with its parameters and
// Limiter applies one to a single key.
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
// at a time, and a bound on stored counters (default 1,000,000) that is
// never exceeded. The Redis store lives in limit/redis.
//
// # Where it differs from its sources
//
//   - Seed 002's sliding window counts a rejected request; this one does not
//     (a rejected hit consumes nothing, for every algorithm).
//   - The token bucket and GCRA refill one token every ceil(window/max)
//     microseconds, so they never admit faster than max per window, and
//     rates above one hit per microsecond are capped there.
package limit
