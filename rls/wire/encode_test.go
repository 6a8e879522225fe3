package wire

import (
	"bytes"
	"strconv"
	"testing"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// fullResponse sets every field the codec writes itself, in every message.
func fullResponse() *rlsv3.RateLimitResponse {
	return &rlsv3.RateLimitResponse{
		OverallCode: rlsv3.RateLimitResponse_OVER_LIMIT,
		Statuses: []*rlsv3.RateLimitResponse_DescriptorStatus{
			{
				Code:               rlsv3.RateLimitResponse_OVER_LIMIT,
				CurrentLimit:       &rlsv3.RateLimitResponse_RateLimit{Name: "per user ✓", RequestsPerUnit: 10, Unit: rlsv3.RateLimitResponse_RateLimit_MINUTE, UnitMultiplier: &wrapperspb.UInt32Value{Value: 5}},
				LimitRemaining:     0,
				DurationUntilReset: &durationpb.Duration{Seconds: 59, Nanos: 999_999_999},
			},
			{Code: rlsv3.RateLimitResponse_OK, CurrentLimit: &rlsv3.RateLimitResponse_RateLimit{RequestsPerUnit: 1 << 31}, LimitRemaining: 1<<32 - 1, DurationUntilReset: &durationpb.Duration{}},
			{Code: rlsv3.RateLimitResponse_OK},
			{},
			{CurrentLimit: &rlsv3.RateLimitResponse_RateLimit{UnitMultiplier: &wrapperspb.UInt32Value{}}, DurationUntilReset: &durationpb.Duration{Seconds: -3, Nanos: -5}},
		},
		ResponseHeadersToAdd: []*corev3.HeaderValue{{Key: "RateLimit-Limit", Value: "10"}, {Key: "x-raw", RawValue: []byte{0, 1, 2}}, {}},
		RequestHeadersToAdd:  []*corev3.HeaderValue{{Key: "x-req", Value: "v"}},
		RawBody:              []byte("over the limit"),
	}
}

// manyStatuses is a response larger than gRPC's buffer pooling threshold.
func manyStatuses() *rlsv3.RateLimitResponse {
	r := &rlsv3.RateLimitResponse{OverallCode: rlsv3.RateLimitResponse_OK}
	for i := range 200 {
		r.Statuses = append(r.Statuses, &rlsv3.RateLimitResponse_DescriptorStatus{
			Code:               rlsv3.RateLimitResponse_OK,
			CurrentLimit:       &rlsv3.RateLimitResponse_RateLimit{Name: "limit " + strconv.Itoa(i), RequestsPerUnit: uint32(i)},
			LimitRemaining:     uint32(i),
			DurationUntilReset: &durationpb.Duration{Seconds: int64(i)},
		})
	}
	return r
}

func withUnknown[M proto.Message](m M) M {
	m.ProtoReflect().SetUnknown(protowire.AppendVarint(protowire.AppendTag(nil, 99, protowire.VarintType), 1))
	return m
}

// TestEncodeResponse holds Codec.Marshal of a RateLimitResponse to
// proto.Marshal: the same bytes, or an error for both; fast says whether
// the codec takes its own path.
func TestEncodeResponse(t *testing.T) {
	tests := []struct {
		name string
		r    *rlsv3.RateLimitResponse
		fast bool
	}{
		{"empty", &rlsv3.RateLimitResponse{}, true},
		{"every field written", fullResponse(), true},
		{"above the pooling threshold", manyStatuses(), true},
		{"an unknown code", &rlsv3.RateLimitResponse{OverallCode: -7, Statuses: []*rlsv3.RateLimitResponse_DescriptorStatus{{Code: 9}}}, true},
		{"dynamic_metadata", &rlsv3.RateLimitResponse{DynamicMetadata: &structpb.Struct{Fields: map[string]*structpb.Value{"a": structpb.NewStringValue("b")}}}, false},
		{"quota", &rlsv3.RateLimitResponse{Quota: &rlsv3.RateLimitResponse_Quota{Requests: 3}}, false},
		{"a status's quota", &rlsv3.RateLimitResponse{Statuses: []*rlsv3.RateLimitResponse_DescriptorStatus{{Quota: &rlsv3.RateLimitResponse_Quota{Requests: 3}}}}, false},
		{"unknown fields in the response", withUnknown(fullResponse()), false},
		{"unknown fields in a status", &rlsv3.RateLimitResponse{Statuses: []*rlsv3.RateLimitResponse_DescriptorStatus{withUnknown(&rlsv3.RateLimitResponse_DescriptorStatus{})}}, false},
		{"unknown fields in a limit", &rlsv3.RateLimitResponse{Statuses: []*rlsv3.RateLimitResponse_DescriptorStatus{{CurrentLimit: withUnknown(&rlsv3.RateLimitResponse_RateLimit{})}}}, false},
		{"unknown fields in a unit_multiplier", &rlsv3.RateLimitResponse{Statuses: []*rlsv3.RateLimitResponse_DescriptorStatus{{CurrentLimit: &rlsv3.RateLimitResponse_RateLimit{UnitMultiplier: withUnknown(&wrapperspb.UInt32Value{})}}}}, false},
		{"unknown fields in a duration", &rlsv3.RateLimitResponse{Statuses: []*rlsv3.RateLimitResponse_DescriptorStatus{{DurationUntilReset: withUnknown(&durationpb.Duration{Seconds: 1})}}}, false},
		{"unknown fields in a header", &rlsv3.RateLimitResponse{ResponseHeadersToAdd: []*corev3.HeaderValue{withUnknown(&corev3.HeaderValue{Key: "k"})}}, false},
		{"a nil status", &rlsv3.RateLimitResponse{Statuses: []*rlsv3.RateLimitResponse_DescriptorStatus{nil}}, false},
		{"a nil header", &rlsv3.RateLimitResponse{RequestHeadersToAdd: []*corev3.HeaderValue{nil}}, false},
		{"a limit name that is not UTF-8", &rlsv3.RateLimitResponse{Statuses: []*rlsv3.RateLimitResponse_DescriptorStatus{{CurrentLimit: &rlsv3.RateLimitResponse_RateLimit{Name: "\xff"}}}}, false},
		{"a header value that is not UTF-8", &rlsv3.RateLimitResponse{ResponseHeadersToAdd: []*corev3.HeaderValue{{Key: "k", Value: "\xc3"}}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if fast := encodable(tt.r); fast != tt.fast {
				t.Errorf("encodable = %v, want %v", fast, tt.fast)
			}
			want, wantErr := proto.Marshal(tt.r)
			data, err := Codec{}.Marshal(tt.r)
			if (err != nil) != (wantErr != nil) {
				t.Fatalf("Codec.Marshal error = %v, want %v (proto.Marshal's)", err, wantErr)
			}
			if err != nil {
				return
			}
			defer data.Free()
			if got := data.Materialize(); !bytes.Equal(got, want) {
				t.Errorf("Codec.Marshal = %x, want %x (proto.Marshal's)", got, want)
			}
		})
	}
}

// TestCodecOtherMessages: messages other than the request and the
// response go through gRPC's proto codec, both ways.
func TestCodecOtherMessages(t *testing.T) {
	in := &grpc_health_v1.HealthCheckResponse{Status: grpc_health_v1.HealthCheckResponse_SERVING}
	data, err := Codec{}.Marshal(in)
	if err != nil {
		t.Fatalf("Codec.Marshal(%v): %v", in, err)
	}
	if got, want := data.Materialize(), marshal(t, in); !bytes.Equal(got, want) {
		t.Errorf("Codec.Marshal(%v) = %x, want %x", in, got, want)
	}
	out := new(grpc_health_v1.HealthCheckResponse)
	if err := (Codec{}).Unmarshal(data, out); err != nil || !proto.Equal(out, in) {
		t.Errorf("Codec.Unmarshal(Codec.Marshal(%v)) = %v, %v; want the message back", in, out, err)
	}
	// The request type is only decoded, the response type only encoded:
	// the other direction is the proto codec's.
	req := fullRequest()
	data, err = Codec{}.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := data.Materialize(), marshal(t, req); !bytes.Equal(got, want) {
		t.Errorf("Codec.Marshal(request) = %x, want %x", got, want)
	}
	resp := new(rlsv3.RateLimitResponse)
	if err := (Codec{}).Unmarshal(mem.BufferSlice{mem.SliceBuffer(marshal(t, fullResponse()))}, resp); err != nil || !proto.Equal(resp, fullResponse()) {
		t.Errorf("Codec.Unmarshal(response) = %v, %v; want the response back", resp, err)
	}
	if _, err := (Codec{}).Marshal(struct{}{}); err == nil {
		t.Error("Codec.Marshal(struct{}{}) = nil error, want one: not a message")
	}
}
