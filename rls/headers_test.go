package rls

import (
	"testing"
	"time"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"github.com/google/go-cmp/cmp"
	"github.com/rlpkit/rlpkit/rlsmsg"
	"google.golang.org/protobuf/proto"
)

func TestResponseHeaders(t *testing.T) {
	tests := []struct {
		name string
		resp *rlsv3.RateLimitResponse
		want map[string]string
	}{
		{"no statuses", resp(ok), nil},
		{"no current limit", resp(ok, unlimited(), unlimited()), nil},
		{
			"one status",
			resp(ok, limited(ok, "a", 10, minute, 7, 42*time.Second)),
			map[string]string{HeaderLimit: "10", HeaderRemaining: "7", HeaderReset: "42"},
		},
		{
			"reset rounds up to whole seconds",
			resp(ok, limited(ok, "a", 10, second, 9, 1500*time.Millisecond)),
			map[string]string{HeaderLimit: "10", HeaderRemaining: "9", HeaderReset: "2"},
		},
		{
			"the least remaining wins",
			resp(ok, limited(ok, "a", 10, minute, 7, 42*time.Second), unlimited(), limited(ok, "b", 100, second, 3, time.Second)),
			map[string]string{HeaderLimit: "100", HeaderRemaining: "3", HeaderReset: "1"},
		},
		{
			"equal remaining: the later reset wins",
			resp(ok, limited(ok, "a", 5, second, 3, time.Second), limited(ok, "b", 9, minute, 3, 30*time.Second), limited(ok, "c", 7, second, 3, time.Second)),
			map[string]string{HeaderLimit: "9", HeaderRemaining: "3", HeaderReset: "30"},
		},
		{
			"over the limit: the first status over, and Retry-After",
			resp(over, limited(ok, "a", 10, minute, 0, 42*time.Second), limited(over, "b", 5, second, 2, 800*time.Millisecond), limited(over, "c", 5, minute, 0, time.Minute)),
			map[string]string{HeaderLimit: "5", HeaderRemaining: "2", HeaderReset: "1", HeaderRetryAfter: "1"},
		},
		{
			"Retry-After is at least 1",
			resp(over, limited(over, "a", 0, second, 0, 0)),
			map[string]string{HeaderLimit: "0", HeaderRemaining: "0", HeaderReset: "0", HeaderRetryAfter: "1"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := proto.Clone(tc.resp)
			r := responseFromProto(t, tc.resp)
			r.ResponseHeadersToAdd = ResponseHeaders(nil, r, &RLPKit)
			var back rlsv3.RateLimitResponse
			if err := proto.Unmarshal(rlsmsg.AppendResponse(nil, r), &back); err != nil {
				t.Fatal(err)
			}
			got := headerMap(&back)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ResponseHeaders(%v) mismatch (-want +got):\n%s", tc.resp, diff)
			}
			if !proto.Equal(before, tc.resp) {
				t.Errorf("ResponseHeaders modified its argument: %v, was %v", tc.resp, before)
			}
		})
	}
}

func TestResponseHeadersNames(t *testing.T) {
	r := responseFromProto(t, resp(over, limited(over, "a", 5, second, 0, 800*time.Millisecond)))
	c := EnvoyRateLimit
	c.HeaderLimit, c.HeaderRemaining, c.HeaderReset = "X-Limit", "X-Remaining", "X-Reset"
	got := ResponseHeaders(nil, r, &c)
	want := []rlsmsg.Header{{Key: "X-Limit", Value: "5"}, {Key: "X-Remaining", Value: "0"}, {Key: "X-Reset", Value: "1"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ResponseHeaders with envoyproxy/ratelimit's conventions mismatch (-want +got):\n%s", diff)
	}
}

// responseFromProto returns a go-control-plane response in the model,
// through the codec.
func responseFromProto(t testing.TB, r *rlsv3.RateLimitResponse) *rlsmsg.Response {
	t.Helper()
	b, err := proto.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var out rlsmsg.Response
	if err := rlsmsg.DecodeResponse(b, &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

// TestReferenceHeadersSkipQuotas: with the reference's pick, a quota
// descriptor over its limit is not the last over the limit: the headers
// describe the other descriptor over it.
func TestReferenceHeadersSkipQuotas(t *testing.T) {
	r := responseFromProto(t, resp(over, limited(over, "a", 5, second, 0, time.Second), limited(over, "q", 9, second, 0, time.Second)))
	for _, tc := range []struct {
		quota []bool
		want  string
	}{{nil, "9"}, {[]bool{false, true}, "5"}} {
		got := responseHeaders(nil, r, tc.quota, &EnvoyRateLimit)
		if len(got) == 0 || got[0].Value != tc.want {
			t.Errorf("quota %v: headers %v, want RateLimit-Limit %s", tc.quota, got, tc.want)
		}
	}
}
