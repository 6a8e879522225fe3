// Package rls is Envoy's Rate Limit Service over rlpkit's limits: it answers
// envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit with
// go-control-plane's message types by evaluating the request with a
// limit.Evaluator over a counter.Store (the memory store or limit/redis).
//
// It is not a server: it opens no listener, starts no goroutine, reads no
// file and exports no metrics (Options.Observe lets a server count). `rlpkit serve` does all of that around a
// Service; a program of its own registers one on its *grpc.Server (created
// with ServerOptions, whose codec from package rls/wire decodes requests and
// encodes responses without protobuf reflection) with
// rlsv3.RegisterRateLimitServiceServer and calls SetLimits when its limits
// change.
//
// # Answers
//
// A request answers with an overall code and one status per descriptor, in
// request order, each with current_limit (the limit that decided, nil when no
// limit applies), limit_remaining and duration_until_reset, with the
// semantics of limit.Evaluator, which are limitador's: each limit is
// evaluated once per request and reported on the descriptors it read,
// hits_addend 0 means 1, a descriptor's own hits_addend replaces the
// request's and an explicit 0 checks without consuming, and a descriptor's
// limit override limits it alone. With Options.ResponseHeaders the response also carries the
// RateLimit header fields of draft-ietf-httpapi-ratelimit-headers-03 for the
// most restrictive status (see ResponseHeaders).
//
// gRPC errors: a request that cannot be evaluated answers InvalidArgument
// (an empty domain, a descriptor without entries, an entry with an empty key,
// or a feature listed below as unsupported), naming every problem with its
// field path; a store that cannot answer gives Unavailable ("rls: counter
// store unavailable: " and the cause, such as the network error), so that
// Envoy's failure_mode_deny decides whether traffic passes. A caller that
// cancels or whose deadline passes before the store answers gets Canceled or
// DeadlineExceeded: its giving up says nothing about the store.
//
// # Observing
//
// Options.Observe sees every call's outcome: the domain (and whether any
// limit has it, so that a server labelling metrics by domain can collapse
// the domains clients make up), the gRPC code, the overall code and every
// counter evaluated, with the limit's name, the hits and the store's
// decision. `rlpkit serve` builds its per-limit Prometheus counters on it.
// The limit's name from the limits file is also echoed in each status's
// current_limit.name, so a client can tell which limit decided.
//
// # Where it differs from upstream
//
//   - Envoy's reference service (envoyproxy/ratelimit) evaluates each
//     descriptor on its own; here, as in limitador, each limit is evaluated
//     once per request over all its descriptors and reported on the
//     descriptors it read (see package limit/limitador). With one descriptor per
//     request, as Kuadrant's filter sends, the two agree.
//   - Envoy's reference service (envoyproxy/ratelimit) fails a request with
//     an empty descriptor list; here it answers OK with no statuses, as
//     nothing in it is over a limit. A domain without limits answers OK for
//     every descriptor in both.
//   - Descriptors asking for a refund (is_negative_hits) and overrides with a
//     unit_multiplier other than 1 answer InvalidArgument: the evaluator
//     has neither refunds nor multiplied units, and consuming hits a client
//     meant to give back, or limiting over the wrong window, would be worse
//     than a clear error.
//   - Limits whose window is not a whole Envoy unit report unit UNKNOWN
//     rather than a unit with a unit_multiplier.
//   - Retry-After and RateLimit-Reset both come from duration_until_reset,
//     which for the token bucket, GCRA and the sliding window is the time
//     until the counter is back to its initial state: a client told to wait
//     that long may have been admitted sooner, never later.
//   - RateLimit-Limit carries the limit alone, without the optional quota
//     policy ("10, 10;w=60"), as Envoy's reference service writes it.
package rls
