// Package rlsmsg is the exchange of Envoy's Rate Limit Service
// (envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit) as plain Go
// values, and their protobuf encoding: the one model every part of rlpkit
// speaks. Package descriptor produces a Request, the proxy-wasm filter
// encodes it and decodes the Response, and the server (package rls) decodes
// Requests and encodes Responses for its evaluators (package limit/limitador and the
// formats under it).
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
// status's duration_until_reset has HasDurationUntilReset. What an RLS
// server and filter never act on is not modelled: Quota (the decoder skips
// it, the encoder never writes it) and HeaderValue.raw_value (skipped, as
// Envoy's own rate-limit filter does). DynamicMetadata is kept as the
// encoded google.protobuf.Struct: a filter decodes it when it needs it.
//
// # The encoding
//
// AppendRequest and AppendResponse write the bytes proto.Marshal writes for
// the same message; DecodeRequest and DecodeResponse accept what
// proto.Unmarshal accepts (unknown fields skipped, a repeated singular
// message merged, the last scalar winning) and refuse what it refuses,
// with an error naming the field. Decoding copies the input's bytes once,
// into one string that every decoded string shares, so the input may be
// reused at once.
package rlsmsg
