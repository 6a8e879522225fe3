package rlsmsg

import (
	"errors"
	"strings"
	"testing"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

func checkRequest(t testing.TB, want, got *Request) {
	t.Helper()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decoded request mismatch (-want +got):\n%s", diff)
	}
}

// dirty is a request a reused decoder decodes before the one under test,
// so that what it leaves behind would show.
var dirty = AppendRequest(nil, fullRequest())

// checkDecodeRequest holds Decode to proto.Unmarshal on b: an error for
// both, or the same request. It decodes with a new decoder and with one
// that decoded another request before, then overwrites b's copy to check
// that the request does not point into it.
func checkDecodeRequest(t testing.TB, b []byte) {
	t.Helper()
	var g rlsv3.RateLimitRequest
	protoErr := proto.Unmarshal(b, &g)
	var reused RequestDecoder
	if err := reused.Decode(dirty, new(Request)); err != nil {
		t.Fatal(err)
	}
	for _, d := range []*RequestDecoder{new(RequestDecoder), &reused} {
		in := append([]byte(nil), b...)
		got := &Request{Domain: "left over", HitsAddend: 9}
		if decodedAlike(t, b, in, d.Decode(in, got), protoErr, "RateLimitRequest") {
			checkRequest(t, requestFromGenerated(&g), got)
		}
	}
}

func TestDecodeRequest(t *testing.T) {
	entry := func(k, v string) []byte { return bytesField(descEntries, str(pairKey, k), str(pairValue, v)) }
	long := strings.Repeat("é", 3000)
	tests := []struct {
		name string
		b    []byte
	}{
		{"empty", nil},
		{"every field", AppendRequest(nil, fullRequest())},
		{"long strings", AppendRequest(nil, &Request{Domain: long, Descriptors: []Descriptor{{Entries: []Entry{{Key: long, Value: long}}}}})},
		{"fields out of order", cat(bytesField(reqDescriptors, entry("k", "v")), str(reqDomain, "d"), varintField(reqHitsAddend, 2))},
		{"the last scalar wins", cat(str(reqDomain, "a"), varintField(reqHitsAddend, 1), str(reqDomain, "b"), varintField(reqHitsAddend, 2))},
		{"hits_addend beyond 32 bits is truncated", varintField(reqHitsAddend, 1<<33+5)},
		{"a negative unit", bytesField(reqDescriptors, bytesField(descLimit, varintField(overrideUnit, 1<<64-1)))},
		{"a unit beyond 32 bits", bytesField(reqDescriptors, bytesField(descLimit, varintField(overrideUnit, 1<<40+3)))},
		{"is_negative_hits any non-zero", bytesField(reqDescriptors, varintField(descIsNegativeHits, 2))},
		{"is_negative_hits set, then cleared", bytesField(reqDescriptors, varintField(descIsNegativeHits, 1), varintField(descIsNegativeHits, 0))},
		{"limit twice merges", bytesField(reqDescriptors,
			bytesField(descLimit, varintField(overrideRequestsPerUnit, 5), varintField(overrideUnit, 1)),
			entry("k", "v"),
			bytesField(descLimit, varintField(overrideUnit, 2)))},
		{"hits_addend twice merges", bytesField(reqDescriptors, bytesField(descHitsAddend, varintField(wrapperValue, 5)), bytesField(descHitsAddend))},
		{"hits_addend twice, the last value wins", bytesField(reqDescriptors,
			bytesField(descHitsAddend, varintField(wrapperValue, 5)), bytesField(descHitsAddend, varintField(wrapperValue, 0)))},
		{"unit_multiplier twice merges", bytesField(reqDescriptors, bytesField(descLimit,
			bytesField(overrideUnitMultiplier, varintField(wrapperValue, 5)), bytesField(overrideUnitMultiplier)))},
		{"unit_multiplier in two limits", bytesField(reqDescriptors,
			bytesField(descLimit, bytesField(overrideUnitMultiplier, varintField(wrapperValue, 5))),
			bytesField(descLimit, varintField(overrideRequestsPerUnit, 1), bytesField(overrideUnitMultiplier, varintField(wrapperValue, 1<<33+6))))},
		{"an entry's key twice", bytesField(reqDescriptors, bytesField(descEntries, str(pairKey, "a"), str(pairKey, "b")))},
		{"unknown fields everywhere", cat(
			varintField(99, 1), fixed32Field(4, 1), fixed64Field(5, 2), bytesField(6, []byte{0xff}), group(7, varintField(1, 1)),
			bytesField(reqDescriptors, varintField(9, 1), bytesField(descEntries, str(pairKey, "k"), varintField(3, 1)),
				bytesField(descLimit, varintField(9, 1)), bytesField(descHitsAddend, varintField(2, 1), fixed64Field(wrapperValue, 3))))},
		{"known fields with another wire type", cat(varintField(reqDomain, 3), bytesField(reqHitsAddend, []byte("x")),
			fixed32Field(reqDescriptors, 1), bytesField(reqDescriptors, varintField(descEntries, 1), fixed64Field(descLimit, 1),
				group(descHitsAddend), bytesField(descIsNegativeHits), bytesField(descEntries, varintField(pairKey, 1))))},
		{"a group in a descriptor", bytesField(reqDescriptors, group(descLimit, varintField(overrideRequestsPerUnit, 1)), entry("k", "v"))},
		{"the largest field number", varintField(protowire.MaxValidNumber, 1)},
		{"field numbers beyond 2^29 inside a group", group(9, varintField(1<<30, 1), varintField(protowire.MaxValidNumber+1, 1))},
		{"a varint of 10 bytes", cat([]byte{0x18}, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})},
		{"a non-minimal varint", []byte{0x18, 0x85, 0x80, 0x80, 0x00}},
		{"two descriptors of one entry", cat(bytesField(reqDescriptors, entry("k", "v")), bytesField(reqDescriptors, entry("l", "w")))},

		// Refused.
		{"a key that is not UTF-8", bytesField(reqDescriptors, bytesField(descEntries, str(pairKey, "\xff")))},
		{"a value that is not UTF-8", bytesField(reqDescriptors, bytesField(descEntries, str(pairValue, "a\xc3")))},
		{"a domain that is not UTF-8", str(reqDomain, "\xed\xa0\x80")},
		{"truncated", AppendRequest(nil, fullRequest())[:20]},
		{"a length beyond the message", bytesField(reqDescriptors, entry("k", "v"))[:5]},
		{"a length beyond a descriptor", bytesField(reqDescriptors, []byte{0x0a, 0x05, 0x0a})},
		{"a truncated varint", []byte{0x18, 0x80}},
		{"a truncated tag", []byte{0x80}},
		{"a varint over 64 bits", []byte{0x18, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}},
		{"a varint over 10 bytes", []byte{0x18, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x81, 0x00}},
		{"a truncated fixed32", []byte{0x25, 1, 2, 3}},
		{"a truncated fixed64", []byte{0x29, 1, 2, 3, 4, 5, 6, 7}},
		{"field number 0", varintField(0, 1)},
		{"a field number beyond 2^29", varintField(protowire.MaxValidNumber+1, 1)},
		{"wire type 6", []byte{0x0e}},
		{"wire type 7 in a descriptor", bytesField(reqDescriptors, []byte{0x0f})},
		{"an unterminated group", protowire.AppendTag(nil, 5, protowire.StartGroupType)},
		{"a group ended by another", cat(protowire.AppendTag(nil, 5, protowire.StartGroupType), protowire.AppendTag(nil, 6, protowire.EndGroupType))},
		{"a stray end of group", protowire.AppendTag(nil, 5, protowire.EndGroupType)},
		{"an end of group in a descriptor", bytesField(reqDescriptors, protowire.AppendTag(nil, 5, protowire.EndGroupType))},
		{"a field number 0 inside a group", group(9, varintField(0, 1))},
		{"a field number beyond 2^31 inside a group", group(9, []byte{0xf8, 0xff, 0xff, 0xff, 0x7f, 0x00})},
		{"wire type 6 inside a group", group(9, []byte{0x0e})},
		{"a broken unit_multiplier", bytesField(reqDescriptors, bytesField(descLimit, bytesField(overrideUnitMultiplier, []byte{0x08})))},
		{"a broken hits_addend", bytesField(reqDescriptors, bytesField(descHitsAddend, []byte{0x08, 0x80}))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkDecodeRequest(t, tc.b)
		})
	}
}

// TestDecodeRequestGroupDepth: groups nest 10001 deep inside an unknown
// field's group, as protobuf-go allows, and no deeper.
func TestDecodeRequestGroupDepth(t *testing.T) {
	for _, n := range []int{MaxDepth, MaxDepth + 1, MaxDepth + 2} {
		checkDecodeRequest(t, nestedGroups(9, n))
		checkDecodeRequest(t, bytesField(reqDescriptors, bytesField(descLimit, nestedGroups(9, n))))
	}
	if _, err := DecodeRequest(nestedGroups(9, MaxDepth+2)); !errors.Is(err, errDepth) {
		t.Errorf("DecodeRequest(%d nested groups) error %v, want %v", MaxDepth+2, err, errDepth)
	}
}

func TestDecodeRequestErrors(t *testing.T) {
	tests := []struct {
		b    []byte
		want string
	}{
		{bytesField(reqDescriptors, bytesField(descEntries), bytesField(descEntries, str(pairKey, "\xff"))),
			"rlsmsg: RateLimitRequest.descriptors[0].entries[1].key: invalid UTF-8"},
		{cat(bytesField(reqDescriptors), bytesField(reqDescriptors, bytesField(descEntries, str(pairValue, "\xff")))),
			"rlsmsg: RateLimitRequest.descriptors[1].entries[0].value: invalid UTF-8"},
		{str(reqDomain, "\xff"), "rlsmsg: RateLimitRequest.domain: invalid UTF-8"},
		{[]byte{0x12, 0x03, 0x12, 0x05, 0x08}, "rlsmsg: RateLimitRequest.descriptors[0]: field 2: truncated"},
		{bytesField(reqDescriptors, bytesField(descLimit, bytesField(overrideUnitMultiplier, []byte{0x08, 0x80}))),
			"rlsmsg: RateLimitRequest.descriptors[0].limit.unit_multiplier: field 1: truncated"},
		{bytesField(reqDescriptors, bytesField(descHitsAddend, []byte{0x00})), "rlsmsg: RateLimitRequest.descriptors[0].hits_addend: invalid field number"},
		{[]byte{0x18, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}, "rlsmsg: RateLimitRequest: field 3: varint overflows 64 bits"},
		{[]byte{0x0e}, "rlsmsg: RateLimitRequest: field 1: invalid wire type"},
		{[]byte{0x0c}, "rlsmsg: RateLimitRequest: field 1: end of group without its start"},
		{[]byte{0x80}, "rlsmsg: RateLimitRequest: truncated"},
	}
	for _, tc := range tests {
		_, err := DecodeRequest(tc.b)
		if err == nil || err.Error() != tc.want {
			t.Errorf("DecodeRequest(%x) error %v, want %s", tc.b, err, tc.want)
		}
	}
}
