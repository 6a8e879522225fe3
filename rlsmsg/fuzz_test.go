package rlsmsg

import (
	"testing"
	"time"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	rlcommon "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// FuzzDecodeRequest holds RequestDecoder.Decode to proto.Unmarshal on any
// input: it never panics, it fails exactly when proto.Unmarshal fails, and
// otherwise it decodes the generated message's model.
func FuzzDecodeRequest(f *testing.F) {
	full := AppendRequest(nil, fullRequest())
	f.Add(full)
	f.Add(cat(full, varintField(99, 1)))
	f.Add(bytesField(reqDescriptors, bytesField(descLimit, varintField(overrideRequestsPerUnit, 5)), bytesField(descLimit, varintField(overrideUnit, 2))))
	f.Add(deterministic(f, &rlsv3.RateLimitRequest{Domain: "d", HitsAddend: 3, Descriptors: []*rlcommon.RateLimitDescriptor{{
		Entries:    []*rlcommon.RateLimitDescriptor_Entry{{Key: "k", Value: "v"}},
		Limit:      &rlcommon.RateLimitDescriptor_RateLimitOverride{RequestsPerUnit: 1, Unit: typev3.RateLimitUnit_SECOND, UnitMultiplier: wrapperspb.UInt32(2)},
		HitsAddend: wrapperspb.UInt64(0), IsNegativeHits: true,
	}}}))
	f.Add(group(5, varintField(1, 1), group(6)))
	f.Add(bytesField(reqDescriptors, bytesField(descEntries, str(pairKey, "\xff"))))
	f.Fuzz(func(t *testing.T, b []byte) {
		checkDecodeRequest(t, b)
	})
}

// FuzzDecodeResponse holds DecodeResponse to proto.Unmarshal on any input,
// as FuzzDecodeRequest does for requests.
func FuzzDecodeResponse(f *testing.F) {
	over := rlsv3.RateLimitResponse_OVER_LIMIT
	f.Add(deterministic(f, &rlsv3.RateLimitResponse{
		OverallCode: over,
		Statuses: []*rlsv3.RateLimitResponse_DescriptorStatus{{Code: over, DurationUntilReset: durationpb.New(time.Second),
			CurrentLimit: &rlsv3.RateLimitResponse_RateLimit{Name: "n", RequestsPerUnit: 2, Unit: 1, UnitMultiplier: wrapperspb.UInt32(3)},
			Quota:        &rlsv3.RateLimitResponse_Quota{Requests: 1, Id: "q"}}},
		ResponseHeadersToAdd: []*corev3.HeaderValue{{Key: "k", Value: "v", RawValue: []byte("r")}},
		RequestHeadersToAdd:  []*corev3.HeaderValue{{Key: "k", Value: "v"}},
		RawBody:              []byte("body"),
		DynamicMetadata: &structpb.Struct{Fields: map[string]*structpb.Value{
			"s": structpb.NewStringValue("v"), "l": structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{structpb.NewNullValue()}}),
		}},
	}))
	f.Add([]byte{0x4b, 0x08, 0x01, 0x4c})
	f.Add(AppendResponse(nil, fullResponse(f)))
	f.Fuzz(func(t *testing.T, b []byte) {
		checkDecodeResponse(t, b)
	})
}
