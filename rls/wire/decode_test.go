package wire

import (
	"testing"

	rlcommon "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// fullRequest sets every field of every message a RateLimitRequest holds.
func fullRequest() *rlsv3.RateLimitRequest {
	return &rlsv3.RateLimitRequest{
		Domain:     "shop",
		HitsAddend: 7,
		Descriptors: []*rlcommon.RateLimitDescriptor{
			{Entries: []*rlcommon.RateLimitDescriptor_Entry{{Key: "user", Value: "alice"}, {Key: "path", Value: "/cart"}}},
			{
				Entries:        []*rlcommon.RateLimitDescriptor_Entry{{Key: "remote_address", Value: ""}},
				Limit:          &rlcommon.RateLimitDescriptor_RateLimitOverride{RequestsPerUnit: 42, Unit: typev3.RateLimitUnit_MINUTE, UnitMultiplier: &wrapperspb.UInt32Value{Value: 3}},
				HitsAddend:     &wrapperspb.UInt64Value{Value: 1 << 40},
				IsNegativeHits: true,
			},
			{Entries: []*rlcommon.RateLimitDescriptor_Entry{{Key: "k", Value: "välue ✓"}}, HitsAddend: &wrapperspb.UInt64Value{}},
			{},
			{Entries: []*rlcommon.RateLimitDescriptor_Entry{{}}, Limit: &rlcommon.RateLimitDescriptor_RateLimitOverride{UnitMultiplier: &wrapperspb.UInt32Value{}}},
		},
	}
}

func marshal(t testing.TB, m proto.Message) []byte {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Raw encodings of fields, for what a message built in Go cannot express.
func varintField(num protowire.Number, v uint64) []byte {
	return protowire.AppendVarint(protowire.AppendTag(nil, num, protowire.VarintType), v)
}

func bytesField(num protowire.Number, parts ...[]byte) []byte {
	var v []byte
	for _, p := range parts {
		v = append(v, p...)
	}
	return protowire.AppendBytes(protowire.AppendTag(nil, num, protowire.BytesType), v)
}

func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

// TestDecodeRequest holds Codec.Unmarshal of a RateLimitRequest to
// proto.Unmarshal: the same message, unknown fields included, or an error
// for both; fast says whether the codec takes its own path.
func TestDecodeRequest(t *testing.T) {
	entry := func(k, v string) []byte {
		return bytesField(descEntries, bytesField(entryKey, []byte(k)), bytesField(entryValue, []byte(v)))
	}
	tests := []struct {
		name string
		b    []byte
		fast bool
	}{
		{"empty", nil, true},
		{"domain only", marshal(t, &rlsv3.RateLimitRequest{Domain: "d"}), true},
		{"every field", marshal(t, fullRequest()), true},
		{"a descriptor with an empty entry and an empty override", marshal(t, &rlsv3.RateLimitRequest{Descriptors: []*rlcommon.RateLimitDescriptor{
			{Entries: []*rlcommon.RateLimitDescriptor_Entry{{}}, Limit: &rlcommon.RateLimitDescriptor_RateLimitOverride{}},
		}}), true},
		{"one descriptor of four entries", marshal(t, &rlsv3.RateLimitRequest{Domain: "d", Descriptors: []*rlcommon.RateLimitDescriptor{
			{Entries: []*rlcommon.RateLimitDescriptor_Entry{{Key: "a", Value: "1"}, {Key: "b", Value: "2"}, {Key: "c"}, {Key: "d", Value: "4"}}, HitsAddend: &wrapperspb.UInt64Value{Value: 2}},
		}}), true},
		{"one descriptor of five entries", marshal(t, &rlsv3.RateLimitRequest{Domain: "d", Descriptors: []*rlcommon.RateLimitDescriptor{
			{Entries: []*rlcommon.RateLimitDescriptor_Entry{{Key: "a", Value: "1"}, {Key: "b", Value: "2"}, {Key: "c"}, {Key: "d", Value: "4"}, {Key: "e", Value: "5"}}},
		}}), true},
		{"two descriptors of one entry", cat(bytesField(reqDescriptors, entry("k", "v")), bytesField(reqDescriptors, entry("l", "w"))), true},
		{"a scalar repeated: the last wins", cat(bytesField(reqDomain, []byte("a")), varintField(reqHitsAddend, 1), bytesField(reqDomain, []byte("b")), varintField(reqHitsAddend, 2)), true},
		{"fields out of order", cat(bytesField(reqDescriptors, entry("k", "v")), bytesField(reqDomain, []byte("d"))), true},
		{"hits_addend beyond 32 bits is truncated", varintField(reqHitsAddend, 1<<33+5), true},
		{"a negative unit", bytesField(reqDescriptors, bytesField(descLimit, varintField(overrideUnit, uint64(1<<64-1)))), true},
		{"is_negative_hits any non-zero", bytesField(reqDescriptors, varintField(descIsNegativeHits, 2)), true},
		{"an unknown field in the request", cat(marshal(t, fullRequest()), varintField(99, 1)), false},
		{"an unknown field in a descriptor", bytesField(reqDescriptors, entry("k", "v"), varintField(9, 1)), false},
		{"an unknown field in an entry", bytesField(reqDescriptors, bytesField(descEntries, bytesField(entryKey, []byte("k")), varintField(3, 1))), false},
		{"an unknown field in an override", bytesField(reqDescriptors, bytesField(descLimit, varintField(9, 1))), false},
		{"an unknown field in hits_addend", bytesField(reqDescriptors, bytesField(descHitsAddend, varintField(2, 1))), false},
		{"domain with the varint wire type", varintField(reqDomain, 3), false},
		{"hits_addend with the bytes wire type", bytesField(reqHitsAddend, []byte("x")), false},
		{"an override twice is merged", bytesField(reqDescriptors,
			bytesField(descLimit, varintField(overrideRequestsPerUnit, 5)), bytesField(descLimit, varintField(overrideUnit, 2))), false},
		{"hits_addend twice is merged", bytesField(reqDescriptors,
			bytesField(descHitsAddend, varintField(wrapperValue, 5)), bytesField(descHitsAddend)), false},
		{"unit_multiplier twice is merged", bytesField(reqDescriptors, bytesField(descLimit,
			bytesField(overrideUnitMultiplier, varintField(wrapperValue, 5)), bytesField(overrideUnitMultiplier))), false},
		{"a key that is not UTF-8", bytesField(reqDescriptors, bytesField(descEntries, bytesField(entryKey, []byte{0xff}))), false},
		{"a domain that is not UTF-8", bytesField(reqDomain, []byte{'a', 0xc3}), false},
		{"truncated", marshal(t, fullRequest())[:20], false},
		{"a length beyond the message", bytesField(reqDescriptors, entry("k", "v"))[:5], false},
		{"field number 0", varintField(0, 1), false},
		{"a group", protowire.AppendTag(nil, 5, protowire.StartGroupType), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if fast := decodeRequest(tt.b, new(rlsv3.RateLimitRequest)); fast != tt.fast {
				t.Errorf("decodeRequest(%x) = %v, want %v", tt.b, fast, tt.fast)
			}
			checkUnmarshal(t, tt.b)
		})
	}
}

// checkUnmarshal decodes b as a RateLimitRequest with Codec, from one
// buffer and from one buffer per byte, and with proto.Unmarshal, and
// reports any difference.
func checkUnmarshal(t *testing.T, b []byte) {
	t.Helper()
	want := new(rlsv3.RateLimitRequest)
	wantErr := proto.Unmarshal(b, want)
	split := make(mem.BufferSlice, len(b))
	for i := range b {
		split[i] = mem.SliceBuffer(b[i : i+1])
	}
	for _, data := range []mem.BufferSlice{{mem.SliceBuffer(b)}, split} {
		got := &rlsv3.RateLimitRequest{Domain: "left over", HitsAddend: 9}
		err := Codec{}.Unmarshal(data, got)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("Codec.Unmarshal(%x) error = %v, want %v (proto.Unmarshal's)", b, err, wantErr)
		}
		if err != nil {
			continue
		}
		if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
			t.Errorf("Codec.Unmarshal(%x) in %d buffers differs from proto.Unmarshal (-want +got):\n%s", b, len(data), diff)
		}
	}
}

// TestDecodeRequestEntriesCapped: a descriptor's entries are a slice of the
// decoder's shared array whose capacity ends with them, so that appending
// to one descriptor's entries cannot overwrite the next one's.
func TestDecodeRequestEntriesCapped(t *testing.T) {
	r := new(rlsv3.RateLimitRequest)
	if !decodeRequest(marshal(t, fullRequest()), r) {
		t.Fatal("decodeRequest(fullRequest) = false, want true")
	}
	first := r.Descriptors[0]
	first.Entries = append(first.Entries, &rlcommon.RateLimitDescriptor_Entry{Key: "added"})
	if got := r.Descriptors[1].Entries[0].GetKey(); got != "remote_address" {
		t.Errorf("after appending to descriptors[0].entries, descriptors[1].entries[0].key = %q, want %q", got, "remote_address")
	}
}

// FuzzCodecUnmarshal holds Codec.Unmarshal to proto.Unmarshal on any bytes.
func FuzzCodecUnmarshal(f *testing.F) {
	f.Add(marshal(f, fullRequest()))
	f.Add(cat(marshal(f, fullRequest()), varintField(99, 1)))
	f.Add(bytesField(reqDescriptors, bytesField(descLimit, varintField(overrideRequestsPerUnit, 5)), bytesField(descLimit, varintField(overrideUnit, 2))))
	f.Fuzz(func(t *testing.T, b []byte) {
		checkUnmarshal(t, b)
	})
}
