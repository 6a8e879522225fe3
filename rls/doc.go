// Package rls is rlpkit's one server of Envoy's Rate Limit Service
// (envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit): it answers
// the RLS model of package rlsmsg with any limit.Evaluator, the formats
// being evaluators (limit/limitador for Limitador-style limits, the output
// of rlpkit's compilers; limit/envoyratelimit for envoyproxy/ratelimit's
// configuration). `rlpkit serve` and cmd/ratelimit, the drop-in
// replacement for envoyproxy/ratelimit, are both built on it.
//
// It is not a server process: it opens no listener, starts no goroutine,
// reads no file and exports no metrics (Options.Observe lets a server
// count). A program registers a Service on its *grpc.Server, created with
// ServerOptions (rlsmsg's codec for the RLS messages, a pool of stream
// workers, static HTTP/2 windows), mounts JSONHandler for the reference's
// POST /json, and calls SetEvaluator (or SetLimits, for Limitador-style
// limits) whenever its configuration changes.
//
// # Answers
//
// A request answers with an overall code and one status per descriptor, in
// request order, each with current_limit (the limit that decided, nil when
// no limit applies), limit_remaining and duration_until_reset, as the
// evaluator decides. With Options.ResponseHeaders the response also carries
// the RateLimit header fields of draft-ietf-httpapi-ratelimit-headers-03 for
// the most restrictive status (see ResponseHeaders); RateLimit-Reset is the
// duration until reset rounded up to whole seconds, so that a client
// retrying at the advertised time is not refused.
//
// A request that cannot be evaluated (a *limit.InvalidRequestError naming
// every problem with its field path), a counter store that cannot answer
// (the cause, such as the network error), and a call before any
// configuration is loaded answer with a gRPC error whose code depends on
// the Conventions. A caller that cancels or whose deadline passes before
// the store answers gets Canceled or DeadlineExceeded: its giving up says
// nothing about the store. A store that knows its backend to be down (an
// error wrapping counter.ErrStoreDown, such as limit/redis's Breaker
// returns) is a store failure like any other, answered at once: the
// Service itself neither retries nor fails open, so the Conventions' code
// reaches Envoy, whose failure mode decides.
//
// # Conventions
//
// What differs between rlpkit's answers and envoyproxy/ratelimit's is an
// explicit option, Options.Conventions; everything else is the same code
// whatever the format:
//
//	                            RLPKit (rlpkit serve)     EnvoyRateLimit (cmd/ratelimit)
//	invalid request             InvalidArgument           Unknown
//	counter store failed        Unavailable               Unknown
//	no configuration loaded     Unavailable               Unknown
//	message prefix              "rls: "                   "ratelimit: "
//	descriptor without entries  InvalidArgument           evaluated (matches nothing)
//	RateLimit-* header names    RateLimit-Limit, ...      LIMIT_*_HEADER, RateLimit-Limit, ...
//	Retry-After when over       yes                       no
//	POST /json (JSONHandler)    not mounted               mounted on the HTTP port
//
// The same for both: a limit override whose unit is UNKNOWN (or outside
// the enum) and a refund (is_negative_hits) are invalid requests in every
// format (limit.CheckDescriptor); reset seconds are rounded up; metrics
// read Outcome, whose counters are named by the configured limit (a
// Limitador limit's name, an envoyproxy/ratelimit rule's name or configured
// path), never by a value of the request; the codec, the stream workers
// and the HTTP/2 windows of ServerOptions.
//
// # Observing
//
// Options.Observe sees every call's outcome: the domain (and whether the
// evaluator has it, so that a server labelling metrics by domain can
// collapse the domains clients make up), the gRPC code, the error, the
// overall code, every counter evaluated with its limit's name, the hits and
// the store's decision, and the call's duration. `rlpkit serve` builds its
// Prometheus metrics on it for every format; cmd/ratelimit its
// reference-compatible statistics.
//
// # Where it differs from upstream
//
//   - Envoy's reference service answers errors with gRPC Unknown whatever
//     went wrong; rlpkit's conventions tell an invalid request
//     (InvalidArgument) from a store failure (Unavailable), so that Envoy's
//     failure_mode_deny decides only the latter.
//   - Retry-After and RateLimit-Reset both come from duration_until_reset,
//     which for the token bucket, GCRA and the sliding window is the time
//     until the counter is back to its initial state: a client told to wait
//     that long may have been admitted sooner, never later.
//   - RateLimit-Limit carries the limit alone, without the optional quota
//     policy ("10, 10;w=60"), as Envoy's reference service writes it.
package rls
