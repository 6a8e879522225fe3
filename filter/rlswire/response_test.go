package rlswire

import (
	"math"
	"testing"
	"time"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// fromGenerated converts a generated response into what DecodeResponse should give.
func fromGenerated(g *rlsv3.RateLimitResponse) *Response {
	out := &Response{OverallCode: Code(g.GetOverallCode())}
	for _, s := range g.GetStatuses() {
		st := Status{Code: Code(s.GetCode()), LimitRemaining: s.GetLimitRemaining()}
		if l := s.GetCurrentLimit(); l != nil {
			st.CurrentLimit = &RateLimit{Name: l.GetName(), RequestsPerUnit: l.GetRequestsPerUnit(), Unit: int32(l.GetUnit())}
		}
		if d := s.GetDurationUntilReset(); d != nil {
			st.DurationUntilReset = &Duration{Seconds: d.GetSeconds(), Nanos: d.GetNanos()}
		}
		out.Statuses = append(out.Statuses, st)
	}
	for _, h := range g.GetResponseHeadersToAdd() {
		out.ResponseHeadersToAdd = append(out.ResponseHeadersToAdd, Header{Key: h.GetKey(), Value: h.GetValue()})
	}
	return out
}

var over = rlsv3.RateLimitResponse_OVER_LIMIT

func TestDecodeResponse(t *testing.T) {
	tests := []struct {
		name string
		msg  *rlsv3.RateLimitResponse
		want *Response
	}{
		{name: "empty", msg: &rlsv3.RateLimitResponse{}, want: &Response{}},
		{name: "ok without statuses", msg: &rlsv3.RateLimitResponse{OverallCode: rlsv3.RateLimitResponse_OK},
			want: &Response{OverallCode: CodeOK}},
		{name: "over limit with headers and every status field", msg: &rlsv3.RateLimitResponse{
			OverallCode: over,
			Statuses: []*rlsv3.RateLimitResponse_DescriptorStatus{
				{Code: rlsv3.RateLimitResponse_OK},
				{Code: over, LimitRemaining: 0, DurationUntilReset: durationpb.New(45 * time.Second),
					CurrentLimit: &rlsv3.RateLimitResponse_RateLimit{Name: "per user", RequestsPerUnit: 2, Unit: rlsv3.RateLimitResponse_RateLimit_MINUTE,
						UnitMultiplier: wrapperspb.UInt32(1)}},
			},
			ResponseHeadersToAdd: []*corev3.HeaderValue{{Key: "RateLimit-Limit", Value: "2"}, {Key: "Retry-After", Value: "45", RawValue: []byte("ignored")}},
			// The fields below are skipped.
			RequestHeadersToAdd: []*corev3.HeaderValue{{Key: "x-skipped", Value: "1"}},
			RawBody:             []byte("body"),
			DynamicMetadata:     &structpb.Struct{Fields: map[string]*structpb.Value{"a": structpb.NewNumberValue(1)}},
		}, want: &Response{
			OverallCode: CodeOverLimit,
			Statuses: []Status{
				{Code: CodeOK},
				{Code: CodeOverLimit, DurationUntilReset: &Duration{Seconds: 45},
					CurrentLimit: &RateLimit{Name: "per user", RequestsPerUnit: 2, Unit: 2}},
			},
			ResponseHeadersToAdd: []Header{{Key: "RateLimit-Limit", Value: "2"}, {Key: "Retry-After", Value: "45"}},
		}},
		{name: "extremes", msg: &rlsv3.RateLimitResponse{
			OverallCode: rlsv3.RateLimitResponse_Code(-7),
			Statuses: []*rlsv3.RateLimitResponse_DescriptorStatus{{
				LimitRemaining:     math.MaxUint32,
				DurationUntilReset: &durationpb.Duration{Seconds: math.MinInt64, Nanos: math.MinInt32},
				CurrentLimit:       &rlsv3.RateLimitResponse_RateLimit{},
			}},
		}, want: &Response{OverallCode: -7, Statuses: []Status{{
			LimitRemaining: math.MaxUint32, DurationUntilReset: &Duration{Seconds: math.MinInt64, Nanos: math.MinInt32}, CurrentLimit: &RateLimit{},
		}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := proto.Marshal(tc.msg)
			if err != nil {
				t.Fatal(err)
			}
			got, err := DecodeResponse(b)
			if err != nil {
				t.Fatalf("DecodeResponse(%x) error %v", b, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("DecodeResponse mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(fromGenerated(tc.msg), got); diff != "" {
				t.Errorf("DecodeResponse disagrees with the generated type (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDecodeResponseWire covers encodings proto.Marshal never writes but proto.Unmarshal
// accepts or rejects.
func TestDecodeResponseWire(t *testing.T) {
	tests := []struct {
		name    string
		in      []byte
		want    *Response
		wantErr bool
	}{
		{name: "last scalar wins", in: []byte{0x08, 0x01, 0x08, 0x02}, want: &Response{OverallCode: CodeOverLimit}},
		{name: "status with a current limit", in: []byte{
			0x12, 0x06, 0x12, 0x04, 0x08, 0x05, 0x10, 0x02, // statuses[0].current_limit{rpu 5, unit 2}
		}, want: &Response{Statuses: []Status{{CurrentLimit: &RateLimit{RequestsPerUnit: 5, Unit: 2}}}}},
		{name: "current_limit twice merges", in: []byte{
			0x12, 0x08, 0x12, 0x02, 0x08, 0x05, 0x12, 0x02, 0x10, 0x02,
		}, want: &Response{Statuses: []Status{{CurrentLimit: &RateLimit{RequestsPerUnit: 5, Unit: 2}}}}},
		{name: "wrong wire type is an unknown field", in: []byte{0x0d, 1, 2, 3, 4}, want: &Response{}},
		{name: "unknown group is skipped", in: []byte{0x4b, 0x08, 0x01, 0x4c, 0x08, 0x01}, want: &Response{OverallCode: CodeOK}},
		{name: "mismatched end group", in: []byte{0x4b, 0x54}, wantErr: true},
		{name: "stray end group", in: []byte{0x4c}, wantErr: true},
		{name: "field number zero", in: []byte{0x00, 0x01}, wantErr: true},
		{name: "truncated length", in: []byte{0x1a, 0x05, 0x0a}, wantErr: true},
		{name: "truncated varint", in: []byte{0x08, 0x80}, wantErr: true},
		{name: "varint overflow", in: []byte{0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}, wantErr: true},
		{name: "wire type 6", in: []byte{0x0e}, wantErr: true},
		{name: "invalid UTF-8 header", in: []byte{0x1a, 0x03, 0x0a, 0x01, 0xff}, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var g rlsv3.RateLimitResponse
			protoErr := proto.Unmarshal(tc.in, &g)
			got, err := DecodeResponse(tc.in)
			if (err != nil) != tc.wantErr || (protoErr != nil) != tc.wantErr {
				t.Fatalf("DecodeResponse(%x) error %v, proto.Unmarshal error %v; want error %v", tc.in, err, protoErr, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("DecodeResponse(%x) mismatch (-want +got):\n%s", tc.in, diff)
			}
			if diff := cmp.Diff(fromGenerated(&g), got); diff != "" {
				t.Errorf("DecodeResponse(%x) disagrees with proto.Unmarshal (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

// FuzzDecodeResponse holds DecodeResponse to proto.Unmarshal: it never panics, whatever
// proto.Unmarshal accepts it accepts with the same values, and what it rejects
// proto.Unmarshal rejects too (it may accept more, as it does not look inside the fields it
// skips).
func FuzzDecodeResponse(f *testing.F) {
	seed, _ := proto.Marshal(&rlsv3.RateLimitResponse{
		OverallCode: over,
		Statuses: []*rlsv3.RateLimitResponse_DescriptorStatus{{Code: over, DurationUntilReset: durationpb.New(time.Second),
			CurrentLimit: &rlsv3.RateLimitResponse_RateLimit{Name: "n", RequestsPerUnit: 2, Unit: 1}}},
		ResponseHeadersToAdd: []*corev3.HeaderValue{{Key: "k", Value: "v"}},
	})
	f.Add(seed)
	f.Add([]byte{0x4b, 0x08, 0x01, 0x4c})
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := DecodeResponse(b)
		var g rlsv3.RateLimitResponse
		protoErr := proto.Unmarshal(b, &g)
		switch {
		case err != nil && protoErr == nil:
			t.Fatalf("DecodeResponse(%x) error %v; proto.Unmarshal accepts it", b, err)
		case err == nil && protoErr == nil:
			if diff := cmp.Diff(fromGenerated(&g), got); diff != "" {
				t.Fatalf("DecodeResponse(%x) disagrees with proto.Unmarshal (-want +got):\n%s", b, diff)
			}
		}
	})
}

func BenchmarkDecodeResponse(b *testing.B) {
	msg, _ := proto.Marshal(&rlsv3.RateLimitResponse{
		OverallCode: rlsv3.RateLimitResponse_OK,
		Statuses: []*rlsv3.RateLimitResponse_DescriptorStatus{{Code: rlsv3.RateLimitResponse_OK, LimitRemaining: 9, DurationUntilReset: durationpb.New(time.Second),
			CurrentLimit: &rlsv3.RateLimitResponse_RateLimit{Name: "n", RequestsPerUnit: 10, Unit: 1}}},
		ResponseHeadersToAdd: []*corev3.HeaderValue{{Key: "RateLimit-Limit", Value: "10"}, {Key: "RateLimit-Remaining", Value: "9"}},
	})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeResponse(msg); err != nil {
			b.Fatal(err)
		}
	}
}
