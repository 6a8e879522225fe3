package policyapi

import (
	"strings"

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
	// Kind is the service method called.
	Kind CallKind
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
