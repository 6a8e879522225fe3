package rlsmsg

import (
	"testing"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	rlcommon "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// The conversions between the model and go-control-plane's generated
// types that the tests hold the codec to.

// requestToGenerated returns the generated message equivalent to r.
func requestToGenerated(r *Request) *rlsv3.RateLimitRequest {
	g := &rlsv3.RateLimitRequest{Domain: r.Domain, HitsAddend: r.HitsAddend}
	for i := range r.Descriptors {
		d := &r.Descriptors[i]
		gd := &rlcommon.RateLimitDescriptor{IsNegativeHits: d.IsNegativeHits}
		for _, e := range d.Entries {
			gd.Entries = append(gd.Entries, &rlcommon.RateLimitDescriptor_Entry{Key: e.Key, Value: e.Value})
		}
		if o := d.Limit; o != nil {
			gd.Limit = &rlcommon.RateLimitDescriptor_RateLimitOverride{RequestsPerUnit: o.RequestsPerUnit, Unit: typev3.RateLimitUnit(o.Unit)}
			if o.UnitMultiplier != nil {
				gd.Limit.UnitMultiplier = wrapperspb.UInt32(*o.UnitMultiplier)
			}
		}
		if d.HitsAddend != nil {
			gd.HitsAddend = wrapperspb.UInt64(*d.HitsAddend)
		}
		g.Descriptors = append(g.Descriptors, gd)
	}
	return g
}

// requestFromGenerated returns the model of g, as Decode should give it:
// nil slices where g has none.
func requestFromGenerated(g *rlsv3.RateLimitRequest) *Request {
	r := &Request{Domain: g.GetDomain(), HitsAddend: g.GetHitsAddend()}
	for _, gd := range g.GetDescriptors() {
		d := Descriptor{IsNegativeHits: gd.GetIsNegativeHits()}
		for _, e := range gd.GetEntries() {
			d.Entries = append(d.Entries, Entry{Key: e.GetKey(), Value: e.GetValue()})
		}
		if l := gd.GetLimit(); l != nil {
			d.Limit = &Override{RequestsPerUnit: l.GetRequestsPerUnit(), Unit: Unit(l.GetUnit())}
			if m := l.GetUnitMultiplier(); m != nil {
				d.Limit.UnitMultiplier = ptr(m.GetValue())
			}
		}
		if h := gd.GetHitsAddend(); h != nil {
			d.HitsAddend = ptr(h.GetValue())
		}
		r.Descriptors = append(r.Descriptors, d)
	}
	return r
}

// responseToGenerated returns the generated message equivalent to r, whose
// DynamicMetadata must be a Struct.
func responseToGenerated(t testing.TB, r *Response) *rlsv3.RateLimitResponse {
	t.Helper()
	g := &rlsv3.RateLimitResponse{OverallCode: rlsv3.RateLimitResponse_Code(r.OverallCode), RawBody: r.RawBody}
	for i := range r.Statuses {
		s := &r.Statuses[i]
		gs := &rlsv3.RateLimitResponse_DescriptorStatus{Code: rlsv3.RateLimitResponse_Code(s.Code), LimitRemaining: s.LimitRemaining}
		if l := s.CurrentLimit; l != nil {
			gs.CurrentLimit = &rlsv3.RateLimitResponse_RateLimit{Name: l.Name, RequestsPerUnit: l.RequestsPerUnit, Unit: rlsv3.RateLimitResponse_RateLimit_Unit(l.Unit)}
			if l.UnitMultiplier != 0 {
				gs.CurrentLimit.UnitMultiplier = wrapperspb.UInt32(l.UnitMultiplier)
			}
		}
		if s.HasDurationUntilReset {
			gs.DurationUntilReset = durationpb.New(s.DurationUntilReset)
		}
		g.Statuses = append(g.Statuses, gs)
	}
	g.ResponseHeadersToAdd = headersToGenerated(r.ResponseHeadersToAdd)
	g.RequestHeadersToAdd = headersToGenerated(r.RequestHeadersToAdd)
	if r.DynamicMetadata != nil {
		g.DynamicMetadata = new(structpb.Struct)
		if err := proto.Unmarshal(r.DynamicMetadata, g.DynamicMetadata); err != nil {
			t.Fatalf("DynamicMetadata %x is not a Struct: %v", r.DynamicMetadata, err)
		}
	}
	return g
}

func headersToGenerated(hs []Header) []*corev3.HeaderValue {
	var g []*corev3.HeaderValue
	for _, h := range hs {
		g = append(g, &corev3.HeaderValue{Key: h.Key, Value: h.Value})
	}
	return g
}

// responseFromGenerated returns the model of g, as DecodeResponse should
// give it but for DynamicMetadata: that is g's Struct marshalled
// deterministically, to compare with normalizeMetadata's.
func responseFromGenerated(t testing.TB, g *rlsv3.RateLimitResponse) *Response {
	t.Helper()
	r := &Response{OverallCode: Code(g.GetOverallCode())}
	for _, gs := range g.GetStatuses() {
		s := Status{Code: Code(gs.GetCode()), LimitRemaining: gs.GetLimitRemaining()}
		if l := gs.GetCurrentLimit(); l != nil {
			s.CurrentLimit = &RateLimit{Name: l.GetName(), RequestsPerUnit: l.GetRequestsPerUnit(), Unit: Unit(l.GetUnit()),
				UnitMultiplier: l.GetUnitMultiplier().GetValue()}
		}
		if d := gs.GetDurationUntilReset(); d != nil {
			s.DurationUntilReset, s.HasDurationUntilReset = d.AsDuration(), true
		}
		r.Statuses = append(r.Statuses, s)
	}
	r.ResponseHeadersToAdd = headersFromGenerated(g.GetResponseHeadersToAdd())
	r.RequestHeadersToAdd = headersFromGenerated(g.GetRequestHeadersToAdd())
	if len(g.GetRawBody()) > 0 {
		r.RawBody = g.GetRawBody()
	}
	if m := g.GetDynamicMetadata(); m != nil {
		r.DynamicMetadata = append([]byte{}, deterministic(t, m)...)
	}
	return r
}

func headersFromGenerated(g []*corev3.HeaderValue) []Header {
	var hs []Header
	for _, h := range g {
		hs = append(hs, Header{Key: h.GetKey(), Value: h.GetValue()})
	}
	return hs
}

// normalizeMetadata replaces r's DynamicMetadata, a Struct, by its
// deterministic encoding, as responseFromGenerated writes it.
func normalizeMetadata(t testing.TB, r *Response) {
	t.Helper()
	if r.DynamicMetadata == nil {
		return
	}
	var st structpb.Struct
	if err := proto.Unmarshal(r.DynamicMetadata, &st); err != nil {
		t.Fatalf("DynamicMetadata %x is not a Struct: %v", r.DynamicMetadata, err)
	}
	r.DynamicMetadata = append([]byte{}, deterministic(t, &st)...)
}

func deterministic(t testing.TB, m proto.Message) []byte {
	t.Helper()
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		t.Fatalf("proto.Marshal(%v): %v", m, err)
	}
	return b
}

func ptr[T any](v T) *T { return &v }
