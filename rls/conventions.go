package rls

import (
	"google.golang.org/grpc/codes"
)

// Conventions are what a Service answers differently for the users of one
// format: everything else (the decisions, the model, the codec, metrics)
// is the same whatever the format. See the package doc for the two sets.
type Conventions struct {
	// InvalidRequest is the gRPC code of a request the evaluator cannot
	// evaluate.
	InvalidRequest codes.Code
	// StoreFailure is the gRPC code of a call whose counter store did not
	// answer.
	StoreFailure codes.Code
	// NoConfig is the gRPC code of a call made before any configuration
	// was loaded (a Service without an evaluator).
	NoConfig codes.Code
	// Prefix starts every error message ("rls: ").
	Prefix string
	// RequireEntries refuses descriptors without entries and entries with
	// an empty key, as invalid requests.
	RequireEntries bool
	// HeaderLimit, HeaderRemaining and HeaderReset name the RateLimit
	// header fields of Options.ResponseHeaders.
	HeaderLimit, HeaderRemaining, HeaderReset string
	// RetryAfter adds Retry-After to the headers of an over-limit answer.
	RetryAfter bool
	// JSONBareErrors answers POST /json (JSONHandler) as
	// envoyproxy/ratelimit does: whatever the method, and every failure
	// (a body that is not a request, a request refused, a call that
	// failed) with 400 and the bare status text "Bad Request" as
	// text/plain, the reason left out. Without it, a method other than
	// POST is 405, a call that failed otherwise than by its request 500,
	// and the body says why.
	JSONBareErrors bool
	// ReferenceHeaders picks the status ResponseHeaders describes as
	// envoyproxy/ratelimit does (see ResponseHeaders).
	ReferenceHeaders bool
	// CapSettings name the settings that raise Options.Caps, in the
	// message refusing a request over one.
	CapSettings CapSettings
}

// RLPKit are the conventions of `rlpkit serve`, for every format it
// serves: errors a client can act on (InvalidArgument, Unavailable so that
// Envoy's failure mode decides), descriptors with entries, Retry-After, and
// its flags as the settings of the caps (--max-descriptors, --max-entries,
// --max-key-bytes; a program of its own names its settings in a copy).
var RLPKit = Conventions{
	InvalidRequest:  codes.InvalidArgument,
	StoreFailure:    codes.Unavailable,
	NoConfig:        codes.Unavailable,
	Prefix:          "rls: ",
	RequireEntries:  true,
	HeaderLimit:     HeaderLimit,
	HeaderRemaining: HeaderRemaining,
	HeaderReset:     HeaderReset,
	RetryAfter:      true,
	CapSettings:     CapSettings{MaxDescriptors: "--max-descriptors", MaxEntries: "--max-entries", MaxKeyBytes: "--max-key-bytes"},
}

// EnvoyRateLimit are envoyproxy/ratelimit's conventions, those of
// cmd/ratelimit: every error is gRPC Unknown, descriptors are not checked
// for entries, no Retry-After, POST /json failures answered "Bad Request"
// as the reference answers them, header names configurable
// (LIMIT_LIMIT_HEADER and the like), and cmd/ratelimit's environment
// variables as the settings of the caps (RLPKIT_MAX_DESCRIPTORS_PER_REQUEST,
// RLPKIT_MAX_ENTRIES_PER_DESCRIPTOR, RLPKIT_MAX_KEY_BYTES_PER_REQUEST; envoyproxy/ratelimit
// has no caps, nor variables of those names).
var EnvoyRateLimit = Conventions{
	InvalidRequest:   codes.Unknown,
	StoreFailure:     codes.Unknown,
	NoConfig:         codes.Unknown,
	Prefix:           "ratelimit: ",
	HeaderLimit:      HeaderLimit,
	HeaderRemaining:  HeaderRemaining,
	HeaderReset:      HeaderReset,
	JSONBareErrors:   true,
	ReferenceHeaders: true,
	CapSettings:      CapSettings{MaxDescriptors: "RLPKIT_MAX_DESCRIPTORS_PER_REQUEST", MaxEntries: "RLPKIT_MAX_ENTRIES_PER_DESCRIPTOR", MaxKeyBytes: "RLPKIT_MAX_KEY_BYTES_PER_REQUEST"},
}
