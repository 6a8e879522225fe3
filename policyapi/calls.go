package policyapi

import (
	"strings"
	"time"

	"github.com/rlpkit/rlpkit/limit/envoyratelimit"
	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// CallKind is what the rate-limit service does with a Call.
type CallKind uint8

// The kinds of call: envoyproxy/ratelimit's ShouldRateLimit, and Limitador's
// CheckRateLimit and Report (kuadrant.service.ratelimit.v1).
const (
	// CallShould decides and consumes HitsAddend hits (ShouldRateLimit).
	CallShould CallKind = iota
	// CallCheck decides as if adding 1 hit and consumes nothing: over when any matching
	// limit is full (CheckRateLimit).
	CallCheck
	// CallReport adds HitsAddend (0 counting as 1) to every matching counter without
	// deciding (Report).
	CallReport
)

// Call is one call of a proxy's rate-limit filter to the rate-limit service.
type Call struct {
	// Filter names the filter that makes it.
	Filter string
	// Request is what it sends.
	Request rlsmsg.Request
	// Rules names, one per descriptor, the rule of the service each counts for; nil when
	// the service's answer names them.
	Rules []string
	// Kind is the service method called.
	Kind CallKind
	// FromResponse marks a stream-done call whose costs are read from what the upstream's
	// response wrote (Envoy AI Gateway's token metadata): a request the proxy rejects
	// itself gets no such response, and the call is not made.
	FromResponse bool
}

// CallsFrontend is a Frontend whose proxy may call the rate-limit service more than once
// for a request: once per rate-limit filter (or action), in order, each until one answers
// OVER_LIMIT, and again when the response is done, for the filters that ran. Targets of a
// CallsFrontend send every call; Generate is the first call alone.
type CallsFrontend interface {
	Frontend
	// Calls returns the request-time calls (each with at least one descriptor) and the
	// stream-done calls the proxy makes for in. With trace not nil, it writes there, one a
	// line, why.
	Calls(in *Request, trace *strings.Builder) (calls, done []Call)
}

// LocalFrontend is a CallsFrontend whose proxy also limits requests itself, with local
// rate limits decided before any call, as Envoy's local rate-limit filter does.
type LocalFrontend interface {
	CallsFrontend
	// NewLocal returns the proxy's local rate limits with every bucket full: the state of
	// one run (a test case, a replay), for one goroutine at a time.
	NewLocal() Local
}

// Local is one run of a proxy's local rate limits.
type Local interface {
	// Calls is CallsFrontend.Calls with the request's local rate limit: nil when none
	// applies to in.
	Calls(in *Request, trace *strings.Builder) (calls, done []Call, local *LocalLimit)
}

// LocalLimit is the local rate limit of one request.
type LocalLimit struct {
	// Buckets names the buckets that apply to the request.
	Buckets []string
	// Take takes a token at now from those buckets and returns the deciding bucket's
	// answer: OVER_LIMIT when it was empty, its CurrentLimit named after the bucket, the
	// time until it has one more token as DurationUntilReset.
	Take func(now time.Time) rlsmsg.Status
}

// RateLimitTarget is a Gateway whose rate-limit service is envoyproxy/ratelimit: rlpkit
// test and simulate run requests through its Frontend (a CallsFrontend, whose calls name
// each descriptor's rule, or a LocalFrontend) against the service's configuration, decided
// with that service's semantics.
type RateLimitTarget interface {
	// RateLimitTarget returns the Gateway's Frontend, the service's configuration, and
	// every rule as a limit, for decisions and replays: Namespace is the rule's domain
	// ("local" for a local rate limit's bucket), Name the rule's name, MaxValue and
	// Seconds its limit.
	RateLimitTarget() (Frontend, *envoyratelimit.Config, []limitador.Limit, error)
}

// LocalDomain is the domain of a local rate limit's decision and limits.
const LocalDomain = "local"
