package rlsmsg

import "time"

// durationFields returns d as the seconds and nanos of a
// google.protobuf.Duration, as durationpb.New does: both of d's sign.
func durationFields(d time.Duration) (int64, int32) {
	return int64(d / time.Second), int32(d % time.Second)
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
