package rls

import (
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/rlpkit/rlpkit/limit"
)

// response builds the wire answer for r. The messages of one response share
// three allocations, one per message type.
func response(r *limit.Response) *rlsv3.RateLimitResponse {
	n := len(r.Statuses)
	out := &rlsv3.RateLimitResponse{OverallCode: rlsv3.RateLimitResponse_Code(r.Code)}
	if n == 0 {
		return out
	}
	statuses := make([]rlsv3.RateLimitResponse_DescriptorStatus, n)
	withLimit := 0
	for i := range r.Statuses {
		if r.Statuses[i].CurrentLimit != nil {
			withLimit++
		}
	}
	limits := make([]rlsv3.RateLimitResponse_RateLimit, withLimit)
	durations := make([]durationpb.Duration, withLimit)
	out.Statuses = make([]*rlsv3.RateLimitResponse_DescriptorStatus, n)
	k := 0
	for i := range r.Statuses {
		st := &r.Statuses[i]
		ps := &statuses[i]
		ps.Code = rlsv3.RateLimitResponse_Code(st.Code)
		if cl := st.CurrentLimit; cl != nil {
			pl := &limits[k]
			pl.Name = cl.Name
			pl.RequestsPerUnit = cl.RequestsPerUnit
			pl.Unit = rlsv3.RateLimitResponse_RateLimit_Unit(cl.Unit)
			ps.CurrentLimit = pl
			ps.LimitRemaining = st.LimitRemaining
			d := &durations[k]
			d.Seconds = int64(st.DurationUntilReset / 1e9)
			d.Nanos = int32(st.DurationUntilReset % 1e9)
			ps.DurationUntilReset = d
			k++
		}
		out.Statuses[i] = ps
	}
	return out
}
