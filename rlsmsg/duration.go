package rlsmsg

import (
	"math"
	"time"
)

// durationFields returns d as the seconds and nanos of a
// google.protobuf.Duration, as durationpb.New does: both of d's sign.
func durationFields(d time.Duration) (int64, int32) {
	return int64(d / time.Second), int32(d % time.Second)
}

// durationOf returns a google.protobuf.Duration's seconds and nanos as a
// time.Duration, as durationpb's AsDuration does: a duration whose
// seconds alone are beyond time.Duration's range (some 292 years), or
// whose nanos take it beyond, saturates to the extreme of its sign.
func durationOf(secs int64, nanos int32) time.Duration {
	const perSecond = int64(time.Second)
	switch {
	case secs > math.MaxInt64/perSecond:
		return math.MaxInt64
	case secs < math.MinInt64/perSecond:
		return math.MinInt64
	}
	d, n := secs*perSecond, int64(nanos)
	switch {
	case n > 0 && d > math.MaxInt64-n:
		return math.MaxInt64
	case n < 0 && d < math.MinInt64-n:
		return math.MinInt64
	}
	return time.Duration(d + n)
}

func durationSize(d time.Duration) int {
	secs, nanos := durationFields(d)
	return uintFieldSize(durationSeconds, uint64(secs)) + enumFieldSize(durationNanos, nanos)
}

func appendDuration(b []byte, num int, d time.Duration) []byte {
	secs, nanos := durationFields(d)
	b = appendMessageHeader(b, num, durationSize(d))
	b = appendUintField(b, durationSeconds, uint64(secs))
	return appendEnumField(b, durationNanos, nanos) // an int32, sign-extended as an enum is
}
