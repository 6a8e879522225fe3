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
// request order, as the evaluator decides; with Options.ResponseHeaders also
// the RateLimit header fields (draft-ietf-httpapi-ratelimit-headers-03) of
// the most restrictive status, RateLimit-Reset rounded up to whole seconds.
// An invalid request (a *limit.InvalidRequestError naming every problem
// with its field path), a failed counter store and a call before any
// configuration is loaded answer a gRPC error whose code the Conventions
// give; the Service neither retries nor fails open, so Envoy's failure mode
// decides. A caller that cancels, or whose deadline passes, gets Canceled
// or DeadlineExceeded: its giving up says nothing about the store (a
// cancellation in the last tenth of the call's time counts as the deadline,
// which the client usually sees pass first).
//
// A request is bounded (Options.Caps, RequestCaps: by default 1,024
// descriptors, 64 entries per descriptor, 256 KiB of domain, keys and
// values), refused before it is evaluated with a message naming the cap and
// the setting that raises it; gRPC's receive limit and POST /json's body
// limit follow the caps.
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
// The rest is the same code for both, and names counters by the configured
// limit, never by a value of the request. Options.Observe sees every call's
// outcome: `rlpkit serve` builds its Prometheus metrics on it, cmd/ratelimit
// its reference-compatible statistics.
//
// # Check and report (Limitador's kuadrant.service.ratelimit.v1)
//
// RegisterKuadrant adds Limitador's CheckRateLimit and Report, whose proto
// reuses Envoy's messages, so they take ShouldRateLimit's path. ModeLimitador
// (the default) counts as Limitador 2.4, overshooting a budget by every
// request in flight; ModeReserve reserves at the check and settles at the
// report, bounding the overshoot (see Mode).
//
// # Where it differs from upstream
//
//   - Retry-After and RateLimit-Reset both come from duration_until_reset,
//     which for the token bucket, GCRA and the sliding window is the time
//     until the counter is back to its initial state: a client told to wait
//     that long may have been admitted sooner, never later.
//   - RateLimit-Limit carries the limit alone, without the optional quota
//     policy ("10, 10;w=60"), as Envoy's reference service writes it.
//   - envoyproxy/ratelimit bounds a request only by gRPC's default receive
//     limit (4 MiB) and reads a POST /json body of any length; rlpkit caps
//     both, and a request over a cap is answered with the reason and the
//     setting to raise, with either conventions.
package rls
