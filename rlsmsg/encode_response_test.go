package rlsmsg

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/structpb"
)

// metadata returns the deterministic encoding of a Struct of m.
func metadata(t testing.TB, m map[string]any) []byte {
	t.Helper()
	st, err := structpb.NewStruct(m)
	if err != nil {
		t.Fatal(err)
	}
	return append([]byte{}, deterministic(t, st)...)
}

// fullResponse sets every field of every message a response holds.
func fullResponse(t testing.TB) *Response {
	return &Response{
		OverallCode: CodeOverLimit,
		Statuses: []Status{
			{
				Code:                  CodeOverLimit,
				CurrentLimit:          &RateLimit{Name: "per user ✓", RequestsPerUnit: 10, Unit: UnitMinute, UnitMultiplier: 5},
				DurationUntilReset:    59*time.Second + 999_999_999,
				HasDurationUntilReset: true,
			},
			{Code: CodeOK, CurrentLimit: &RateLimit{RequestsPerUnit: 1 << 31}, LimitRemaining: math.MaxUint32, HasDurationUntilReset: true},
			{Code: CodeOK},
			{},
			{CurrentLimit: &RateLimit{Unit: UnitWeek}, DurationUntilReset: -3*time.Second - 5, HasDurationUntilReset: true},
			{DurationUntilReset: time.Second}, // not written: HasDurationUntilReset is false
		},
		ResponseHeadersToAdd: []Header{{Key: "RateLimit-Limit", Value: "10"}, {Key: "x-empty"}, {}},
		RequestHeadersToAdd:  []Header{{Key: "x-req", Value: "v"}},
		RawBody:              []byte("over the limit"),
		DynamicMetadata:      metadata(t, map[string]any{"a": "b", "n": 1.5, "l": []any{true, nil}, "s": map[string]any{"x": "y"}}),
	}
}

func TestAppendResponse(t *testing.T) {
	many := &Response{OverallCode: CodeOK}
	for i := range 300 {
		many.Statuses = append(many.Statuses, Status{Code: CodeOK, CurrentLimit: &RateLimit{Name: "limit " + strconv.Itoa(i), RequestsPerUnit: uint32(i)},
			LimitRemaining: uint32(i), DurationUntilReset: time.Duration(i) * time.Second, HasDurationUntilReset: true})
	}
	tests := []struct {
		name string
		resp *Response
	}{
		{"empty", &Response{}},
		{"every field", fullResponse(t)},
		{"300 statuses", many},
		{"unknown codes", &Response{OverallCode: -7, Statuses: []Status{{Code: 9}}}},
		{"an empty status", &Response{Statuses: []Status{{}}}},
		{"an empty current limit", &Response{Statuses: []Status{{CurrentLimit: &RateLimit{}}}}},
		{"a zero duration", &Response{Statuses: []Status{{HasDurationUntilReset: true}}}},
		{"extreme durations", &Response{Statuses: []Status{
			{DurationUntilReset: math.MaxInt64, HasDurationUntilReset: true},
			{DurationUntilReset: math.MinInt64, HasDurationUntilReset: true},
			{DurationUntilReset: -1, HasDurationUntilReset: true},
		}}},
		{"empty raw_body", &Response{RawBody: []byte{}}},
		{"empty dynamic_metadata", &Response{DynamicMetadata: []byte{}}},
		{"headers only", &Response{RequestHeadersToAdd: []Header{{Key: "k", Value: "v"}, {Key: "k", Value: "w"}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkAppendResponse(t, tc.resp)
		})
	}
}

// checkAppendResponse holds AppendResponse and ResponseSize to
// proto.Marshal of the generated message (deterministic, for the
// metadata's map).
func checkAppendResponse(t *testing.T, r *Response) {
	t.Helper()
	want := deterministic(t, responseToGenerated(t, r))
	checkAppend(t, want, func(b []byte) []byte { return AppendResponse(b, r) }, ResponseSize(r))
}

func randomHeaders(rng *rand.Rand) []Header {
	var hs []Header
	for range rng.IntN(4) {
		hs = append(hs, Header{Key: randomString(rng), Value: randomString(rng)})
	}
	return hs
}

func randomResponse(t testing.TB, rng *rand.Rand) *Response {
	r := &Response{OverallCode: Code(int32(randomUint(rng, 32)) % 4)}
	for range rng.IntN(8) {
		s := Status{Code: Code(rng.IntN(3)), LimitRemaining: uint32(randomUint(rng, 32))}
		if rng.IntN(2) == 0 {
			s.CurrentLimit = &RateLimit{Name: randomString(rng), RequestsPerUnit: uint32(randomUint(rng, 32)),
				Unit: Unit(rng.IntN(9) - 1), UnitMultiplier: uint32(randomUint(rng, 32))}
		}
		if rng.IntN(2) == 0 {
			s.DurationUntilReset, s.HasDurationUntilReset = time.Duration(randomUint(rng, 64)), true
		}
		r.Statuses = append(r.Statuses, s)
	}
	r.ResponseHeadersToAdd, r.RequestHeadersToAdd = randomHeaders(rng), randomHeaders(rng)
	if rng.IntN(3) == 0 {
		r.RawBody = []byte(randomString(rng))
	}
	if rng.IntN(3) == 0 {
		m := map[string]any{}
		for range rng.IntN(3) {
			m[randomString(rng)] = randomString(rng)
		}
		r.DynamicMetadata = metadata(t, m)
	}
	return r
}

func TestAppendResponseRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 3000 {
		checkAppendResponse(t, randomResponse(t, rng))
		if t.Failed() {
			return
		}
	}
}
