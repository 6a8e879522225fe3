package rls

import (
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/rlpkit/rlpkit/limit/limitador"
)

// response builds the wire answer for r. The messages of a response with one
// status, the common case, share one allocation; those of a longer one
// share four, one per message type and one for the list.
func response(r *limitador.Response) *rlsv3.RateLimitResponse {
	n := len(r.Statuses)
	if n == 1 {
		one := new(oneStatus)
		one.list[0] = &one.status
		one.resp.OverallCode = rlsv3.RateLimitResponse_Code(r.Code)
		one.resp.Statuses = one.list[:]
		fillStatus(&one.status, &r.Statuses[0], &one.limit, &one.duration)
		return &one.resp
	}
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
		var pl *rlsv3.RateLimitResponse_RateLimit
		var d *durationpb.Duration
		if r.Statuses[i].CurrentLimit != nil {
			pl, d = &limits[k], &durations[k]
			k++
		}
		fillStatus(&statuses[i], &r.Statuses[i], pl, d)
		out.Statuses[i] = &statuses[i]
	}
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

// fillStatus sets ps from st; pl and d are the storage for its current limit
// and duration until reset, used when a limit applies.
func fillStatus(ps *rlsv3.RateLimitResponse_DescriptorStatus, st *limitador.DescriptorStatus, pl *rlsv3.RateLimitResponse_RateLimit, d *durationpb.Duration) {
	ps.Code = rlsv3.RateLimitResponse_Code(st.Code)
	cl := st.CurrentLimit
	if cl == nil {
		return
	}
	pl.Name = cl.Name
	pl.RequestsPerUnit = cl.RequestsPerUnit
	pl.Unit = rlsv3.RateLimitResponse_RateLimit_Unit(cl.Unit)
	ps.CurrentLimit = pl
	ps.LimitRemaining = st.LimitRemaining
	d.Seconds = int64(st.DurationUntilReset / 1e9)
	d.Nanos = int32(st.DurationUntilReset % 1e9)
	ps.DurationUntilReset = d
}
