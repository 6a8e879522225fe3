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
// the Service's ServerOptions (rlsmsg's codec for the RLS messages, a
// receive limit matching its caps, a pool of stream workers, static HTTP/2
// windows), mounts JSONHandler for the reference's POST /json, and calls
// SetEvaluator (or SetLimits, for Limitador-style limits) whenever its
// configuration changes.
//
// # Answers
//
// A request answers with an overall code and one status per descriptor, in
// request order, each with current_limit (the limit that decided, nil when
// no limit applies), limit_remaining and duration_until_reset, as the
// evaluator decides. With Options.ResponseHeaders the response also carries
// the RateLimit header fields of draft-ietf-httpapi-ratelimit-headers-03 for
// the most restrictive status (see ResponseHeaders; the reference's
// conventions pick it as the reference does); RateLimit-Reset is the
// duration until reset rounded up to whole seconds, so that a client
// retrying at the advertised time is not refused.
//
// A request that cannot be evaluated (a *limit.InvalidRequestError naming
// every problem with its field path), a counter store that cannot answer
// (the cause, such as the network error), and a call before any
// configuration is loaded answer with a gRPC error whose code depends on
// the Conventions. A caller that cancels or whose deadline passes before
// the store answers gets Canceled or DeadlineExceeded: its giving up says
// nothing about the store. A gRPC client cancels its call when its deadline
// passes, and that cancellation often arrives before the server's own copy
// of the deadline (taken when the call's headers arrived) passes, so a
// cancellation in the last tenth of the time the call had on arrival counts
// as DeadlineExceeded. A store that knows its backend to be down (an
// error wrapping counter.ErrStoreDown, such as limit/redis's Breaker
// returns) is a store failure like any other, answered at once: the
// Service itself neither retries nor fails open, so the Conventions' code
// reaches Envoy, whose failure mode decides.
//
// # Caps
//
// A request is bounded (Options.Caps, RequestCaps): at most 1,024
// descriptors, 64 entries per descriptor and 256 KiB of domain, keys and
// values by default, more than any real configuration sends, so that one
// request cannot hold a server (and the counter store's locks) for
// seconds. A request over a cap is an invalid request, refused before it
// is evaluated, whatever the configuration, with a message naming the cap,
// the request's figure and the setting that raises it
// (Conventions.CapSettings):
//
//	rls: invalid request: descriptors: 30000, over the cap of 1024 per request (raise it with --max-descriptors)
//
// The codec stops decoding at the field that passes the cap and measures
// the rest by its tags and lengths (rlsmsg.Caps), so that such a request
// costs a pass over its bytes and one copy of them. Below the codec, gRPC's
// receive limit (grpc.MaxRecvMsgSize, set by ServerOptions) follows the
// caps: RequestCaps.MaxRecvMsgSize, the longest encoding of a request
// within them (about 1.3 MiB with the defaults); a longer message is
// refused with ResourceExhausted, gRPC's own answer, before it is read
// whole. POST /json reads at most as much as a request within the caps
// takes in JSON (about 3.75 MiB with the defaults), and answers 400 to an
// invalid request, one over a cap included.
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
//	status the headers describe first over, else least       last over, else first least
//	                            remaining (latest reset)  remaining
//	POST /json (JSONHandler)    not mounted               mounted on the HTTP port
//	POST /json failures         400/405/500, the reason   400 "Bad Request", any method
//	request over a cap          InvalidArgument           Unknown
//	settings named by it        --max-descriptors, ...    RLPKIT_MAX_DESCRIPTORS_PER_REQUEST, ...
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
//   - envoyproxy/ratelimit bounds a request only by gRPC's default receive
//     limit (4 MiB) and reads a POST /json body of any length; rlpkit caps
//     descriptors, entries and key bytes, and bounds both by the caps.
//     With the reference's conventions POST /json answers every failure as
//     the reference does, 400 "Bad Request", but a request over a cap or a
//     body over the bound, answered 400 with the reason, which names the
//     setting to raise (the reference has no caps). With rlpkit's, a
//     refused request is 400 and any other failure 500, with the reason.
package rls
