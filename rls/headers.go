package rls

import (
	"strconv"
	"time"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// Default header names of the RateLimit header fields.
const (
	HeaderLimit      = "RateLimit-Limit"
	HeaderRemaining  = "RateLimit-Remaining"
	HeaderReset      = "RateLimit-Reset"
	HeaderRetryAfter = "Retry-After"
)

// ResponseHeaders appends to dst the RateLimit header fields of
// draft-ietf-httpapi-ratelimit-headers-03 for resp, taken from its most
// restrictive status, named as c says, and returns dst unchanged when no
// status has a current limit:
//
//	RateLimit-Limit: requests_per_unit
//	RateLimit-Remaining: limit_remaining
//	RateLimit-Reset: duration_until_reset in whole seconds, rounded up
//	Retry-After: the same seconds, at least 1, only when the overall code is
//	OVER_LIMIT and c.RetryAfter is set
//
// The most restrictive status is, among those with a current limit, the
// first that is over the limit, or else the one with the least remaining,
// the latest reset breaking ties, then request order. With
// Conventions.ReferenceHeaders it is the reference's pick instead: the
// last that is over the limit, or else the first with the least remaining.
func ResponseHeaders(dst []rlsmsg.Header, resp *rlsmsg.Response, c *Conventions) []rlsmsg.Header {
	return responseHeaders(dst, resp, nil, c)
}

// responseHeaders is ResponseHeaders for a response whose statuses of
// quota descriptors (limit.Result.Quota) the reference's pick does not take
// as over.
func responseHeaders(dst []rlsmsg.Header, resp *rlsmsg.Response, quota []bool, c *Conventions) []rlsmsg.Header {
	var st *rlsmsg.Status
	if c.ReferenceHeaders {
		st = referencePick(resp.Statuses, quota)
	} else {
		st = mostRestrictive(resp.Statuses)
	}
	if st == nil {
		return dst
	}
	reset := limit.ResetSeconds(max(st.DurationUntilReset, 0))
	dst = append(dst,
		rlsmsg.Header{Key: c.HeaderLimit, Value: strconv.FormatUint(uint64(st.CurrentLimit.RequestsPerUnit), 10)},
		rlsmsg.Header{Key: c.HeaderRemaining, Value: strconv.FormatUint(uint64(st.LimitRemaining), 10)},
		rlsmsg.Header{Key: c.HeaderReset, Value: strconv.FormatInt(reset, 10)})
	if c.RetryAfter && resp.OverallCode == rlsmsg.CodeOverLimit {
		dst = append(dst, rlsmsg.Header{Key: HeaderRetryAfter, Value: strconv.FormatInt(max(reset, 1), 10)})
	}
	return dst
}

// mostRestrictive picks the status the headers describe; see ResponseHeaders.
func mostRestrictive(statuses []rlsmsg.Status) *rlsmsg.Status {
	var pick *rlsmsg.Status
	for i := range statuses {
		st := &statuses[i]
		if st.CurrentLimit == nil {
			continue
		}
		if st.Code == rlsmsg.CodeOverLimit {
			return st
		}
		if pick == nil || st.LimitRemaining < pick.LimitRemaining ||
			st.LimitRemaining == pick.LimitRemaining && duration(st) > duration(pick) {
			pick = st
		}
	}
	return pick
}

// referencePick is envoyproxy/ratelimit's choice of the status the
// headers describe: the last over the limit that is not a quota's (quota
// set at its index), else the first of those with a current limit with the
// least remaining.
func referencePick(statuses []rlsmsg.Status, quota []bool) *rlsmsg.Status {
	var pick *rlsmsg.Status
	for i := range statuses {
		st := &statuses[i]
		switch {
		case st.CurrentLimit == nil:
		case st.Code == rlsmsg.CodeOverLimit && !(i < len(quota) && quota[i]):
			pick = st
		case pick == nil || pick.Code != rlsmsg.CodeOverLimit && st.LimitRemaining < pick.LimitRemaining:
			pick = st
		}
	}
	return pick
}

func duration(st *rlsmsg.Status) time.Duration {
	if !st.HasDurationUntilReset {
		return 0
	}
	return st.DurationUntilReset
}
