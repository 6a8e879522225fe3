package rls

import (
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/rlpkit/rlpkit/rlsmsg"
)

// toProto returns r as a go-control-plane response. The messages of a
// response with one status, the common case, share one allocation; those
// of a longer one share four, one per message type and one for the list.
func toProto(r *rlsmsg.Response) *rlsv3.RateLimitResponse {
	var out *rlsv3.RateLimitResponse
	switch n := len(r.Statuses); n {
	case 0:
		out = new(rlsv3.RateLimitResponse)
	case 1:
		one := new(oneStatus)
		one.list[0] = &one.status
		out = &one.resp
		out.Statuses = one.list[:]
		fillStatus(&one.status, &r.Statuses[0], &one.limit, &one.duration)
	default:
		out = &rlsv3.RateLimitResponse{Statuses: make([]*rlsv3.RateLimitResponse_DescriptorStatus, n)}
		statuses := make([]rlsv3.RateLimitResponse_DescriptorStatus, n)
		limits := make([]rlsv3.RateLimitResponse_RateLimit, n)
		durations := make([]durationpb.Duration, n)
		for i := range r.Statuses {
			fillStatus(&statuses[i], &r.Statuses[i], &limits[i], &durations[i])
			out.Statuses[i] = &statuses[i]
		}
	}
	out.OverallCode = rlsv3.RateLimitResponse_Code(r.OverallCode)
	out.RawBody = r.RawBody
	out.ResponseHeadersToAdd = headersToProto(r.ResponseHeadersToAdd)
	out.RequestHeadersToAdd = headersToProto(r.RequestHeadersToAdd)
	return out
}

// oneStatus holds the messages of a response with one status.
type oneStatus struct {
	resp     rlsv3.RateLimitResponse
	status   rlsv3.RateLimitResponse_DescriptorStatus
	limit    rlsv3.RateLimitResponse_RateLimit
	duration durationpb.Duration
	list     [1]*rlsv3.RateLimitResponse_DescriptorStatus
}

// fillStatus sets ps from st; pl and d are the storage for its current
// limit and duration until reset, used when st has them.
func fillStatus(ps *rlsv3.RateLimitResponse_DescriptorStatus, st *rlsmsg.Status, pl *rlsv3.RateLimitResponse_RateLimit, d *durationpb.Duration) {
	ps.Code = rlsv3.RateLimitResponse_Code(st.Code)
	ps.LimitRemaining = st.LimitRemaining
	if cl := st.CurrentLimit; cl != nil {
		pl.Name, pl.RequestsPerUnit, pl.Unit = cl.Name, cl.RequestsPerUnit, rlsv3.RateLimitResponse_RateLimit_Unit(cl.Unit)
		if cl.UnitMultiplier != 0 {
			pl.UnitMultiplier = wrapperspb.UInt32(cl.UnitMultiplier)
		}
		ps.CurrentLimit = pl
	}
	if st.HasDurationUntilReset {
		d.Seconds = int64(st.DurationUntilReset / 1e9)
		d.Nanos = int32(st.DurationUntilReset % 1e9)
		ps.DurationUntilReset = d
	}
}

func headersToProto(hs []rlsmsg.Header) []*corev3.HeaderValue {
	if len(hs) == 0 {
		return nil
	}
	out := make([]*corev3.HeaderValue, len(hs))
	for i, h := range hs {
		out[i] = &corev3.HeaderValue{Key: h.Key, Value: h.Value}
	}
	return out
}
