package rlsmsg

import (
	"math"
	"strings"
	"testing"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

func checkResponse(t testing.TB, want, got *Response) {
	t.Helper()
	normalizeMetadata(t, got)
	normalizeMetadata(t, want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decoded response mismatch (-want +got):\n%s", diff)
	}
}

// checkDecodeResponse holds DecodeResponse to proto.Unmarshal on b: an
// error for both, or the same response. It overwrites b's copy after
// decoding, to check that the response does not point into it.
func checkDecodeResponse(t testing.TB, b []byte) {
	t.Helper()
	var g rlsv3.RateLimitResponse
	protoErr := proto.Unmarshal(b, &g)
	in := append([]byte(nil), b...)
	got := &Response{OverallCode: 9, RawBody: []byte("left over")}
	if decodedAlike(t, b, in, DecodeResponse(in, got), protoErr, "RateLimitResponse") {
		checkResponse(t, responseFromGenerated(t, &g), got)
	}
}

// Struct, Value and ListValue fields, for raw metadata.
func structField(k string, v ...[]byte) []byte {
	return bytesField(1, str(1, k), bytesField(2, v...))
}
func stringValue(s string) []byte    { return str(3, s) }
func structValue(f ...[]byte) []byte { return bytesField(5, f...) }
func listValue(v ...[]byte) []byte   { return bytesField(6, v...) }

// deepStruct returns a Struct of structs levels deep: {"a": {"a": ...}}
func deepStruct(levels int) []byte {
	var b []byte
	for range levels {
		b = structField("a", structValue(b))
	}
	return b
}

func TestDecodeResponse(t *testing.T) {
	dm := func(parts ...[]byte) []byte { return bytesField(respDynamicMetadata, parts...) }
	status := func(parts ...[]byte) []byte { return bytesField(respStatuses, parts...) }
	quota := func(parts ...[]byte) []byte { return bytesField(respQuota, parts...) }
	ts := deterministic(t, timestamppb.New(timestamppb.Now().AsTime()))
	tests := []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"every field", AppendResponse(nil, fullResponse(t))},
		{"the last scalar wins", cat(varintField(respOverallCode, 1), varintField(respOverallCode, 2), str(respRawBody, "a"), str(respRawBody, "b"))},
		{"an empty raw_body after one", cat(str(respRawBody, "a"), str(respRawBody, ""))},
		{"a code beyond 32 bits", varintField(respOverallCode, 1<<40+2)},
		{"current_limit twice merges", status(bytesField(statusCurrentLimit, varintField(limitRequestsPerUnit, 5), str(limitName, "n")),
			bytesField(statusCurrentLimit, varintField(limitUnit, 2), bytesField(limitUnitMultiplier, varintField(wrapperValue, 3))),
			bytesField(statusCurrentLimit, bytesField(limitUnitMultiplier)))},
		{"duration_until_reset twice merges", status(bytesField(statusDurationUntilReset, varintField(durationSeconds, 5), varintField(durationNanos, 7)),
			bytesField(statusDurationUntilReset, varintField(durationNanos, 9)))},
		{"an empty duration", status(bytesField(statusDurationUntilReset))},
		{"durations beyond time.Duration", cat(
			status(bytesField(statusDurationUntilReset, varintField(durationSeconds, maxSecs+1))),
			status(bytesField(statusDurationUntilReset, varintField(durationSeconds, maxSecs), varintField(durationNanos, 999_999_999))),
			status(bytesField(statusDurationUntilReset, varintField(durationSeconds, maxSecs), varintField(durationNanos, math.MaxInt32))),
			status(bytesField(statusDurationUntilReset, varintField(durationSeconds, maxSecs+1), varintField(durationNanos, uint64(1<<64-2_000_000_000)))),
			status(bytesField(statusDurationUntilReset, varintField(durationSeconds, i64(math.MinInt64)))),
			status(bytesField(statusDurationUntilReset, varintField(durationSeconds, i64(minSecs)), varintField(durationNanos, uint64(1<<64-1_000_000_000)))),
			status(bytesField(statusDurationUntilReset, varintField(durationSeconds, 1), varintField(durationNanos, uint64(1<<64-3_000_000_000)))),
			status(bytesField(statusDurationUntilReset, varintField(durationNanos, 1<<40+1))))},
		{"dynamic_metadata twice merges", cat(
			dm(structField("a", stringValue("1")), structField("b", stringValue("2"))),
			str(respRawBody, "x"),
			dm(structField("b", structValue(structField("c", stringValue("3")))), varintField(9, 1)))},
		{"metadata of every kind", dm(structField("s", stringValue("v")), structField("n", fixed64Field(2, math.Float64bits(math.NaN()))),
			structField("b", varintField(4, 1)), structField("z", varintField(1, 0)),
			structField("l", listValue(bytesField(1, stringValue("x")), bytesField(1), bytesField(1, listValue()))),
			structField("o", structValue(structField("k", varintField(4, 0)))), structField("missing"), bytesField(1))},
		{"a Value with two kinds", dm(structField("a", stringValue("s"), varintField(4, 1), structValue(), stringValue("t")))},
		{"metadata's known fields with other wire types", dm(varintField(1, 1), structField("a", varintField(3, 1), varintField(5, 2), varintField(6, 3)),
			bytesField(1, varintField(1, 1), varintField(2, 1)))},
		{"quotas", cat(quota(varintField(1, 5), bytesField(2, ts), str(3, "id")), status(bytesField(statusQuota, str(3, "id"), bytesField(2, varintField(1, 1)))))},
		{"headers", cat(bytesField(respResponseHeadersToAdd, str(pairKey, "k"), str(pairValue, "v"), str(3, "raw \xff")),
			bytesField(respRequestHeadersToAdd, str(pairValue, "v"), str(pairKey, "k")), bytesField(respResponseHeadersToAdd))},
		{"unknown fields and groups", cat(varintField(99, 1), group(8, varintField(1, 1), group(9)), status(fixed32Field(9, 1), group(1)),
			bytesField(respResponseHeadersToAdd, fixed64Field(9, 1)), dm(group(2), varintField(7, 1)))},
		{"known fields with other wire types", cat(bytesField(respOverallCode), varintField(respStatuses, 1), fixed32Field(respRawBody, 1),
			varintField(respDynamicMetadata, 1), varintField(respQuota, 2), status(bytesField(statusCode), varintField(statusCurrentLimit, 1),
				varintField(statusDurationUntilReset, 1), bytesField(statusLimitRemaining), varintField(statusQuota, 1)))},
		{"metadata nested as deep as allowed", dm(deepStruct(MaxDepth/3 - 1))},
		{"metadata nested too deep", dm(deepStruct(MaxDepth / 3))},
		{"a Struct at the last depth", valueAt(MaxDepth-2, structValue())},
		{"a Struct at the last depth with fields of another wire type", valueAt(MaxDepth-2, structValue(varintField(1, 1)))},
		{"a Struct at the last depth with fields", valueAt(MaxDepth-2, structValue(structField("a")))},
		{"a Value at the last depth", valueAt(MaxDepth-1, stringValue("x"))},
		{"a Value too deep", valueAt(MaxDepth, stringValue("x"))},
		{"a ListValue at the last depth with values of another wire type", valueAt(MaxDepth-2, listValue(varintField(1, 1)))},
		{"a ListValue at the last depth with values", valueAt(MaxDepth-2, listValue(bytesField(1)))},

		// Refused.
		{"a limit name that is not UTF-8", status(bytesField(statusCurrentLimit, str(limitName, "\xff")))},
		{"a header key that is not UTF-8", bytesField(respRequestHeadersToAdd, str(pairKey, "\xc3"))},
		{"a metadata key that is not UTF-8", dm(structField("\xff"))},
		{"a metadata string that is not UTF-8", dm(structField("k", listValue(bytesField(1, stringValue("\xff")))))},
		{"a quota id that is not UTF-8", quota(str(3, "\xff"))},
		{"a status quota id that is not UTF-8", status(bytesField(statusQuota, str(3, "\xff")))},
		{"a broken timestamp", quota(bytesField(2, []byte{0x08}))},
		{"broken metadata", dm(structField("k", []byte{0x1a, 0x05}))},
		{"truncated", AppendResponse(nil, fullResponse(t))[:30]},
		{"an end of group in a duration", status(bytesField(statusDurationUntilReset, protowire.AppendTag(nil, 1, protowire.EndGroupType)))},
		{"a broken unit_multiplier", status(bytesField(statusCurrentLimit, bytesField(limitUnitMultiplier, []byte{0x08})))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkDecodeResponse(t, tc.b)
		})
	}
}

// valueAt returns a response whose dynamic_metadata (at depth 1) holds a
// Value of content inner at depth depth, nested in lists (two levels each)
// and structs (three: Struct, map entry, Value).
func valueAt(depth int, inner []byte) []byte {
	for depth > 3 {
		if (depth-3)%2 == 0 {
			inner, depth = listValue(bytesField(1, inner)), depth-2
		} else {
			inner, depth = structValue(structField("a", inner)), depth-3
		}
	}
	return bytesField(respDynamicMetadata, structField("a", inner))
}

const (
	maxSecs = math.MaxInt64 / 1_000_000_000
	minSecs = math.MinInt64 / 1_000_000_000
)

func TestDecodeResponseErrors(t *testing.T) {
	tests := []struct {
		b    []byte
		want string
	}{
		{cat(bytesField(respStatuses), bytesField(respStatuses, bytesField(statusCurrentLimit, str(limitName, "\xff")))),
			"rlsmsg: RateLimitResponse.statuses[1].current_limit.name: invalid UTF-8"},
		{cat(bytesField(respRequestHeadersToAdd), bytesField(respRequestHeadersToAdd, str(pairValue, "\xff"))),
			"rlsmsg: RateLimitResponse.request_headers_to_add[1].value: invalid UTF-8"},
		{bytesField(respDynamicMetadata, structField("k", listValue(bytesField(1), bytesField(1, stringValue("\xff"))))),
			"rlsmsg: RateLimitResponse.dynamic_metadata.fields[0].value.list_value.values[1].string_value: invalid UTF-8"},
		{bytesField(respStatuses, bytesField(statusQuota, str(3, "\xff"))), "rlsmsg: RateLimitResponse.statuses[0].quota.id: invalid UTF-8"},
		{bytesField(respStatuses, bytesField(statusDurationUntilReset, []byte{0x10})),
			"rlsmsg: RateLimitResponse.statuses[0].duration_until_reset: field 2: truncated"},
		{bytesField(respDynamicMetadata, deepStruct(MaxDepth/3)), "rlsmsg: RateLimitResponse.dynamic_metadata" +
			strings.Repeat(".fields[0].value.struct_value", 3) + ".fields[0].(... 9977 fields ...)" +
			strings.Repeat(".fields[0].value.struct_value", 4) + ": messages nested too deeply"},
	}
	for _, tc := range tests {
		var r Response
		err := DecodeResponse(tc.b, &r)
		if err == nil || err.Error() != tc.want {
			t.Errorf("DecodeResponse(%x) error\n%v\nwant\n%s", short(tc.b), err, tc.want)
		}
	}
}

func TestDecodeResponseDurations(t *testing.T) {
	for _, d := range []*durationpb.Duration{
		{Seconds: 1, Nanos: -2}, {Seconds: -1, Nanos: 2}, {Seconds: math.MaxInt64, Nanos: math.MaxInt32}, {Seconds: math.MinInt64, Nanos: math.MinInt32},
		{Seconds: maxSecs, Nanos: 854775807}, {Seconds: maxSecs, Nanos: 854775808},
		{Seconds: minSecs, Nanos: -854775808}, {Seconds: minSecs, Nanos: -854775809},
	} {
		b := deterministic(t, &rlsv3.RateLimitResponse{Statuses: []*rlsv3.RateLimitResponse_DescriptorStatus{{DurationUntilReset: d}}})
		var r Response
		if err := DecodeResponse(b, &r); err != nil {
			t.Fatal(err)
		}
		if got, want := r.Statuses[0].DurationUntilReset, d.AsDuration(); got != want {
			t.Errorf("duration %v decoded as %v, want %v (AsDuration)", d, got, want)
		}
	}
}

func i64(v int64) uint64 { return uint64(v) }
