// Package rlsmsg is the exchange of Envoy's Rate Limit Service
// (envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit) as plain Go
// values, and their protobuf encoding: the one model every part of rlpkit
// speaks. Package descriptor produces a Request, the proxy-wasm filter
// encodes it and decodes the Response, and the server (package rls) decodes
// Requests and encodes Responses for its evaluators (package limit's
// Evaluator: limit/limitador and limit/envoyratelimit).
//
// It imports only the standard library and builds for GOOS=wasip1
// GOARCH=wasm, so that a filter can use it.
//
// # The model
//
// Request, Descriptor, Entry and Override are RateLimitRequest,
// RateLimitDescriptor, its Entry and its RateLimitOverride; Response,
// Status, RateLimit and Header are RateLimitResponse, its DescriptorStatus,
// its RateLimit and envoy.config.core.v3.HeaderValue. Where protobuf tells
// an unset wrapper from a zero one (a descriptor's hits_addend, an
// override's unit_multiplier) the model does too, with a pointer; a
// status's duration_until_reset has HasDurationUntilReset. A limit's
// unit_multiplier, where no multiplier and a multiplier of 0 both mean one
// unit, is a plain number: 0 is not written, and a wrapper holding 0 reads
// as 0. What an RLS server and filter never act on is not modelled: Quota
// (the decoder checks it as proto.Unmarshal does and drops it, the encoder
// never writes it) and HeaderValue.raw_value (skipped, as Envoy's own
// rate-limit filter does). DynamicMetadata is kept as the encoded
// google.protobuf.Struct: a filter decodes it when it needs it.
//
// # The encoding
//
// AppendRequest and AppendResponse write the bytes proto.Marshal writes for
// the same message (go-control-plane's generated types; there are no maps,
// so determinism does not matter): fields in field number order, zero
// scalars and empty strings and bytes left out, a set message field
// written even when empty, DynamicMetadata as it is when it is not nil,
// even empty. A time.Duration is written as durationpb.New writes it
// (seconds and nanos of its sign). They do not check that strings are
// UTF-8, where proto.Marshal fails. RequestSize and ResponseSize say how
// long the encodings are, for a buffer of the right size.
//
// RequestDecoder.Decode, DecodeRequest and DecodeResponse accept what
// proto.Unmarshal accepts and refuse what it refuses, with a *DecodeError
// naming the field ("rlsmsg: RateLimitRequest.descriptors[0].entries[1].key:
// invalid UTF-8"); no input makes them panic. As in protobuf-go, unknown
// fields (groups included) are skipped, a known field of another wire type
// is an unknown field, the last scalar wins, a singular message field that
// occurs again merges into the first (the second limit's set fields
// replace the first's; DynamicMetadata is then the concatenation of the
// occurrences, which decodes as their merge), strings must be UTF-8, and
// messages nest at most MaxDepth deep, dynamic_metadata's too. Where the
// model cannot hold what proto.Unmarshal reads, it keeps what the model
// has room for: a duration_until_reset beyond time.Duration's range (some
// 292 years) saturates to time.Duration's extreme of the seconds' sign, as
// durationpb's AsDuration does; an empty raw_body is nil.
//
// Decoding copies the input's bytes once, into one string that every
// decoded string shares, so the input may be reused at once. A
// RequestDecoder, for a server, also keeps the arrays a Request's
// descriptors, entries, overrides and costs are in from one request to the
// next: once they are large enough, a Decode allocates the input's copy
// and nothing else.
//
// A RequestDecoder's Caps bound what it decodes: descriptors per request,
// entries per descriptor, and the bytes of the domain and the entries'
// keys and values. Decoding stops at the field that passes a cap, and the
// *CapError refusing the request gives the request's figure, measured over
// the rest of the input by reading tags and lengths only, so that a
// request far over a cap costs a pass over its bytes, the input's copy and
// the error, not the descriptors it holds. proto.Unmarshal has no such
// bounds; a zero Caps has none either.
//
// # Wire primitives
//
// EachField, AppendTag, AppendVarint and SizeVarint are the protobuf wire
// format as the codec reads and writes it, for packages that decode or
// encode other messages of the exchange with the same rules (the filter's
// GrpcService and Metadata, in package filter/rlswire).
package rlsmsg
