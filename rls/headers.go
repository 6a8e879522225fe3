package rls

import (
	"strconv"
	"time"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
)

// Header names written by ResponseHeaders.
const (
	HeaderLimit      = "RateLimit-Limit"
	HeaderRemaining  = "RateLimit-Remaining"
	HeaderReset      = "RateLimit-Reset"
	HeaderRetryAfter = "Retry-After"
)

// ResponseHeaders returns the RateLimit header fields of
// draft-ietf-httpapi-ratelimit-headers-03 for resp, taken from its most
// restrictive status, or nil when no status has a current limit:
//
//	RateLimit-Limit: requests_per_unit
//	RateLimit-Remaining: limit_remaining
//	RateLimit-Reset: duration_until_reset in whole seconds, rounded up
//	Retry-After: the same seconds, at least 1, only when the overall code is OVER_LIMIT
//
// The most restrictive status is, among those with a current limit, the
// first that is over the limit, or else the one with the least remaining,
// the latest reset breaking ties, then request order. It does not modify
// resp.
func ResponseHeaders(resp *rlsv3.RateLimitResponse) []*corev3.HeaderValue {
	st := mostRestrictive(resp.GetStatuses())
	if st == nil {
		return nil
	}
	reset := ceilSeconds(st.GetDurationUntilReset().AsDuration())
	n := 3
	over := resp.GetOverallCode() == rlsv3.RateLimitResponse_OVER_LIMIT
	if over {
		n++
	}
	values := make([]corev3.HeaderValue, n)
	out := make([]*corev3.HeaderValue, n)
	set := func(i int, key string, v int64) {
		values[i].Key = key
		values[i].Value = strconv.FormatInt(v, 10)
		out[i] = &values[i]
	}
	set(0, HeaderLimit, int64(st.GetCurrentLimit().GetRequestsPerUnit()))
	set(1, HeaderRemaining, int64(st.GetLimitRemaining()))
	set(2, HeaderReset, reset)
	if over {
		set(3, HeaderRetryAfter, max(reset, 1))
	}
	return out
}

// mostRestrictive picks the status the headers describe; see ResponseHeaders.
func mostRestrictive(statuses []*rlsv3.RateLimitResponse_DescriptorStatus) *rlsv3.RateLimitResponse_DescriptorStatus {
	var pick *rlsv3.RateLimitResponse_DescriptorStatus
	for _, st := range statuses {
		if st.GetCurrentLimit() == nil {
			continue
		}
		if st.GetCode() == rlsv3.RateLimitResponse_OVER_LIMIT {
			return st
		}
		if pick == nil || st.GetLimitRemaining() < pick.GetLimitRemaining() ||
			st.GetLimitRemaining() == pick.GetLimitRemaining() &&
				st.GetDurationUntilReset().AsDuration() > pick.GetDurationUntilReset().AsDuration() {
			pick = st
		}
	}
	return pick
}

// ceilSeconds is d in whole seconds, rounded up; negative durations are 0.
func ceilSeconds(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	s := int64(d / time.Second)
	if d%time.Second != 0 {
		s++
	}
	return s
}
