package wire

import (
	"unicode/utf8"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// Field numbers of the response messages (envoy/service/ratelimit/v3/rls.proto,
// envoy/config/core/v3/base.proto, google/protobuf/duration.proto).
const (
	respOverallCode          = 1
	respStatuses             = 2
	respResponseHeadersToAdd = 3
	respRequestHeadersToAdd  = 4
	respRawBody              = 5

	statusCode               = 1
	statusCurrentLimit       = 2
	statusLimitRemaining     = 3
	statusDurationUntilReset = 4

	limitRequestsPerUnit = 1
	limitUnit            = 2
	limitName            = 3
	limitUnitMultiplier  = 4

	durationSeconds = 1
	durationNanos   = 2

	headerKey      = 1
	headerValue    = 2
	headerRawValue = 3
)

// encodable reports whether appendResponse encodes r exactly as
// proto.Marshal does: every field it has is one appendResponse writes, no
// message has unknown fields, no list has a nil element and every string
// is UTF-8 (proto.Marshal fails on one that is not).
func encodable(r *rlsv3.RateLimitResponse) bool {
	if r.DynamicMetadata != nil || r.Quota != nil || unknown(r) {
		return false
	}
	for _, s := range r.Statuses {
		if s == nil || s.Quota != nil || unknown(s) {
			return false
		}
		if l := s.CurrentLimit; l != nil {
			if unknown(l) || !utf8.ValidString(l.Name) || l.UnitMultiplier != nil && unknown(l.UnitMultiplier) {
				return false
			}
		}
		if s.DurationUntilReset != nil && unknown(s.DurationUntilReset) {
			return false
		}
	}
	return headersEncodable(r.ResponseHeadersToAdd) && headersEncodable(r.RequestHeadersToAdd)
}

func headersEncodable(hs []*corev3.HeaderValue) bool {
	for _, h := range hs {
		if h == nil || unknown(h) || !utf8.ValidString(h.Key) || !utf8.ValidString(h.Value) {
			return false
		}
	}
	return true
}

func unknown(m proto.Message) bool {
	return len(m.ProtoReflect().GetUnknown()) > 0
}

// responseSize is the encoded size of r, for an encodable r.
func responseSize(r *rlsv3.RateLimitResponse) int {
	n := enumSize(respOverallCode, int32(r.OverallCode))
	for _, s := range r.Statuses {
		n += messageSize(respStatuses, statusSize(s))
	}
	for _, h := range r.ResponseHeadersToAdd {
		n += messageSize(respResponseHeadersToAdd, headerSize(h))
	}
	for _, h := range r.RequestHeadersToAdd {
		n += messageSize(respRequestHeadersToAdd, headerSize(h))
	}
	return n + bytesSize(respRawBody, len(r.RawBody))
}

// appendResponse appends r, encodable, to b in field number order, as
// proto.Marshal writes it.
func appendResponse(b []byte, r *rlsv3.RateLimitResponse) []byte {
	b = appendEnum(b, respOverallCode, int32(r.OverallCode))
	for _, s := range r.Statuses {
		b = appendMessageHeader(b, respStatuses, statusSize(s))
		b = appendStatus(b, s)
	}
	for _, h := range r.ResponseHeadersToAdd {
		b = appendMessageHeader(b, respResponseHeadersToAdd, headerSize(h))
		b = appendHeader(b, h)
	}
	for _, h := range r.RequestHeadersToAdd {
		b = appendMessageHeader(b, respRequestHeadersToAdd, headerSize(h))
		b = appendHeader(b, h)
	}
	return appendBytes(b, respRawBody, r.RawBody)
}

func statusSize(s *rlsv3.RateLimitResponse_DescriptorStatus) int {
	n := enumSize(statusCode, int32(s.Code))
	if s.CurrentLimit != nil {
		n += messageSize(statusCurrentLimit, limitSize(s.CurrentLimit))
	}
	n += uintSize(statusLimitRemaining, uint64(s.LimitRemaining))
	if s.DurationUntilReset != nil {
		n += messageSize(statusDurationUntilReset, durationSize(s.DurationUntilReset))
	}
	return n
}

func appendStatus(b []byte, s *rlsv3.RateLimitResponse_DescriptorStatus) []byte {
	b = appendEnum(b, statusCode, int32(s.Code))
	if s.CurrentLimit != nil {
		b = appendMessageHeader(b, statusCurrentLimit, limitSize(s.CurrentLimit))
		b = appendLimit(b, s.CurrentLimit)
	}
	b = appendUint(b, statusLimitRemaining, uint64(s.LimitRemaining))
	if d := s.DurationUntilReset; d != nil {
		b = appendMessageHeader(b, statusDurationUntilReset, durationSize(d))
		b = appendDuration(b, d)
	}
	return b
}

func limitSize(l *rlsv3.RateLimitResponse_RateLimit) int {
	n := uintSize(limitRequestsPerUnit, uint64(l.RequestsPerUnit)) +
		enumSize(limitUnit, int32(l.Unit)) +
		bytesSize(limitName, len(l.Name))
	if l.UnitMultiplier != nil {
		n += messageSize(limitUnitMultiplier, uint32ValueSize(l.UnitMultiplier))
	}
	return n
}

func appendLimit(b []byte, l *rlsv3.RateLimitResponse_RateLimit) []byte {
	b = appendUint(b, limitRequestsPerUnit, uint64(l.RequestsPerUnit))
	b = appendEnum(b, limitUnit, int32(l.Unit))
	b = appendString(b, limitName, l.Name)
	if m := l.UnitMultiplier; m != nil {
		b = appendMessageHeader(b, limitUnitMultiplier, uint32ValueSize(m))
		b = appendUint(b, wrapperValue, uint64(m.Value))
	}
	return b
}

func uint32ValueSize(v *wrapperspb.UInt32Value) int {
	return uintSize(wrapperValue, uint64(v.Value))
}

func durationSize(d *durationpb.Duration) int {
	return uintSize(durationSeconds, uint64(d.Seconds)) + uintSize(durationNanos, uint64(int64(d.Nanos)))
}

func appendDuration(b []byte, d *durationpb.Duration) []byte {
	b = appendUint(b, durationSeconds, uint64(d.Seconds))
	return appendUint(b, durationNanos, uint64(int64(d.Nanos)))
}

func headerSize(h *corev3.HeaderValue) int {
	return bytesSize(headerKey, len(h.Key)) + bytesSize(headerValue, len(h.Value)) + bytesSize(headerRawValue, len(h.RawValue))
}

func appendHeader(b []byte, h *corev3.HeaderValue) []byte {
	b = appendString(b, headerKey, h.Key)
	b = appendString(b, headerValue, h.Value)
	return appendBytes(b, headerRawValue, h.RawValue)
}

// The proto3 scalar rules: a zero value is not written; an enum is
// written as its int32 sign-extended to 64 bits; a present message is
// written even when empty.

func uintSize(num protowire.Number, v uint64) int {
	if v == 0 {
		return 0
	}
	return protowire.SizeTag(num) + protowire.SizeVarint(v)
}

func enumSize(num protowire.Number, v int32) int {
	return uintSize(num, uint64(int64(v)))
}

func bytesSize(num protowire.Number, n int) int {
	if n == 0 {
		return 0
	}
	return protowire.SizeTag(num) + protowire.SizeBytes(n)
}

func messageSize(num protowire.Number, n int) int {
	return protowire.SizeTag(num) + protowire.SizeBytes(n)
}

func appendUint(b []byte, num protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func appendEnum(b []byte, num protowire.Number, v int32) []byte {
	return appendUint(b, num, uint64(int64(v)))
}

func appendString(b []byte, num protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendBytes(b []byte, num protowire.Number, v []byte) []byte {
	if len(v) == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func appendMessageHeader(b []byte, num protowire.Number, n int) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendVarint(b, uint64(n))
}
