package rls

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	rlv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/envoyratelimit"
)

// The tests of this file serve envoyproxy/ratelimit's configuration with
// its conventions, as cmd/ratelimit does.

const ratelimitConfig = `domain: d
descriptors:
  - key: k
    rate_limit: {name: kl, unit: minute, requests_per_unit: 2}
  - key: h
    rate_limit: {unit: hour, requests_per_unit: 10}
`

var ratelimitT0 = time.Unix(1_800_000_000-1_800_000_000%3600+10, 0)

// newRatelimitService serves ratelimitConfig with o and EnvoyRateLimit's
// conventions (its header names replaced by o's when set) at ratelimitT0.
func newRatelimitService(t testing.TB, o Options, loaded bool) *Service {
	t.Helper()
	ev, err := envoyratelimit.NewEvaluator(envoyratelimit.Options{Store: counter.NewMemoryStore(counter.MemoryOptions{})})
	if err != nil {
		t.Fatal(err)
	}
	conv := EnvoyRateLimit
	if o.Conventions != nil {
		conv = *o.Conventions
	}
	o.Conventions = &conv
	o.Clock = func() time.Time { return ratelimitT0 }
	s := NewService(o)
	if !loaded {
		return s
	}
	cfg, err := envoyratelimit.Load([]envoyratelimit.File{{Key: "config.d", Data: []byte(ratelimitConfig)}}, envoyratelimit.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.SetEvaluator(ev.WithConfig(cfg), cfg.Limits())
	return s
}

func rreq(domain string, descs ...*rlv3.RateLimitDescriptor) *rlsv3.RateLimitRequest {
	return &rlsv3.RateLimitRequest{Domain: domain, Descriptors: descs}
}

func d(k, v string) *rlv3.RateLimitDescriptor {
	return &rlv3.RateLimitDescriptor{Entries: []*rlv3.RateLimitDescriptor_Entry{{Key: k, Value: v}}}
}

func TestRatelimitShouldRateLimit(t *testing.T) {
	conv := EnvoyRateLimit
	conv.HeaderReset = "X-Reset"
	s := newRatelimitService(t, Options{ResponseHeaders: true, Conventions: &conv}, true)
	got, err := s.ShouldRateLimit(context.Background(), rreq("d", d("k", "a"), d("h", "a"), d("none", "x")))
	if err != nil {
		t.Fatal(err)
	}
	want := &rlsv3.RateLimitResponse{
		OverallCode: rlsv3.RateLimitResponse_OK,
		Statuses: []*rlsv3.RateLimitResponse_DescriptorStatus{
			{Code: rlsv3.RateLimitResponse_OK, CurrentLimit: &rlsv3.RateLimitResponse_RateLimit{Name: "kl", RequestsPerUnit: 2, Unit: rlsv3.RateLimitResponse_RateLimit_MINUTE}, LimitRemaining: 1, DurationUntilReset: durationpb.New(50 * time.Second)},
			{Code: rlsv3.RateLimitResponse_OK, CurrentLimit: &rlsv3.RateLimitResponse_RateLimit{RequestsPerUnit: 10, Unit: rlsv3.RateLimitResponse_RateLimit_HOUR}, LimitRemaining: 9, DurationUntilReset: durationpb.New(3590 * time.Second)},
			{Code: rlsv3.RateLimitResponse_OK},
		},
		ResponseHeadersToAdd: []*corev3.HeaderValue{{Key: "RateLimit-Limit", Value: "2"}, {Key: "RateLimit-Remaining", Value: "1"}, {Key: "X-Reset", Value: "50"}},
	}
	if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
		t.Errorf("ShouldRateLimit() (-want +got):\n%s", diff)
	}
}

func TestRatelimitShouldRateLimitErrors(t *testing.T) {
	s := newRatelimitService(t, Options{}, true)
	unknownUnit := d("k", "a")
	unknownUnit.Limit = &rlv3.RateLimitDescriptor_RateLimitOverride{RequestsPerUnit: 1, Unit: typev3.RateLimitUnit_UNKNOWN}
	negative := d("k", "a")
	negative.IsNegativeHits = true
	tests := []struct {
		name string
		req  *rlsv3.RateLimitRequest
		want string
	}{
		{"empty domain", rreq("", d("k", "a")), "ratelimit: invalid request: domain: rate limit domain must not be empty"},
		{"no descriptors", rreq("d"), "ratelimit: invalid request: descriptors: rate limit descriptor list must not be empty"},
		{"override with unit UNKNOWN", rreq("d", unknownUnit), "ratelimit: invalid request: descriptors[0].limit.unit: UNKNOWN is not a unit: want SECOND, MINUTE, HOUR, DAY, WEEK, MONTH or YEAR"},
		{"negative hits", rreq("d", negative), "ratelimit: invalid request: descriptors[0].is_negative_hits: refunds are not supported"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.ShouldRateLimit(context.Background(), tc.req)
			if st := status.Convert(err); st.Code() != codes.Unknown || st.Message() != tc.want {
				t.Errorf("ShouldRateLimit() = %v, want Unknown %q", err, tc.want)
			}
		})
	}
	empty := newRatelimitService(t, Options{}, false)
	_, err := empty.ShouldRateLimit(context.Background(), rreq("d", d("k", "a")))
	if st := status.Convert(err); st.Code() != codes.Unknown || st.Message() != "no rate limit configuration loaded" {
		t.Errorf("ShouldRateLimit(no config) = %v, want Unknown no rate limit configuration loaded", err)
	}
}

func TestRatelimitOverrideAndHits(t *testing.T) {
	s := newRatelimitService(t, Options{}, true)
	o := d("x", "y")
	o.Limit = &rlv3.RateLimitDescriptor_RateLimitOverride{RequestsPerUnit: 3, Unit: typev3.RateLimitUnit_SECOND, UnitMultiplier: wrapperspb.UInt32(10)}
	o.HitsAddend = wrapperspb.UInt64(2)
	got, err := s.ShouldRateLimit(context.Background(), rreq("d", o))
	if err != nil {
		t.Fatal(err)
	}
	want := &rlsv3.RateLimitResponse_DescriptorStatus{Code: rlsv3.RateLimitResponse_OK,
		CurrentLimit:   &rlsv3.RateLimitResponse_RateLimit{RequestsPerUnit: 3, Unit: rlsv3.RateLimitResponse_RateLimit_SECOND, UnitMultiplier: wrapperspb.UInt32(10)},
		LimitRemaining: 1, DurationUntilReset: durationpb.New(10 * time.Second)}
	if diff := cmp.Diff(want, got.Statuses[0], protocmp.Transform()); diff != "" {
		t.Errorf("ShouldRateLimit(override) (-want +got):\n%s", diff)
	}
}

// TestJSONHandler: with the reference's conventions, POST /json answers as
// the reference's does, every failure 400 with the bare "Bad Request" as
// text/plain, whatever the method; with rlpkit's, the reason is the body.
func TestJSONHandler(t *testing.T) {
	const valid = `{"domain":"d","descriptors":[{"entries":[{"key":"k","value":"j"}]}]}`
	type jsonCase struct {
		name, method, body string
		wantCode           int
		wantBody           string
	}
	run := func(t *testing.T, h http.Handler, tests []jsonCase) {
		t.Helper()
		for _, tc := range tests {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(tc.method, "/json", strings.NewReader(tc.body)))
			if rec.Code != tc.wantCode || !strings.Contains(rec.Body.String(), tc.wantBody) {
				t.Errorf("%s: %s /json %s = %d %q, want %d containing %q", tc.name, tc.method, tc.body, rec.Code, rec.Body, tc.wantCode, tc.wantBody)
			}
			if ct := rec.Header().Get("Content-Type"); rec.Code >= 400 && rec.Code != 429 && ct != "text/plain; charset=utf-8" {
				t.Errorf("%s: Content-Type %q, want text/plain", tc.name, ct)
			}
		}
	}
	const bad = "Bad Request\n"
	run(t, newRatelimitService(t, Options{}, true).JSONHandler(), []jsonCase{
		{"ok", "POST", valid, 200, `"overallCode":"OK"`},
		{"second ok", "POST", valid, 200, `"durationUntilReset":"50s"}]}`},
		{"over", "POST", valid, 429, `"overallCode":"OVER_LIMIT"`},
		{"bad json", "POST", `{"domain":`, 400, bad},
		{"empty body", "POST", ``, 400, bad},
		{"empty domain", "POST", `{"domain":"","descriptors":[{"entries":[{"key":"k","value":"j"}]}]}`, 400, bad},
		{"no descriptors", "POST", `{"domain":"d"}`, 400, bad},
		{"GET without a body", "GET", "", 400, bad},
	})
	run(t, newRatelimitService(t, Options{}, false).JSONHandler(), []jsonCase{
		{"no configuration", "POST", valid, 400, bad},
	})
	rlpkit := RLPKit
	run(t, newRatelimitService(t, Options{Conventions: &rlpkit}, true).JSONHandler(), []jsonCase{
		{"bad json", "POST", `{"domain":`, 400, "invalid RateLimitRequest"},
		{"invalid request", "POST", `{"domain":""}`, 400, "rls: invalid request: domain: empty"},
		{"GET", "GET", "", 405, "POST a RateLimitRequest"},
	})
	run(t, newRatelimitService(t, Options{Conventions: &rlpkit}, false).JSONHandler(), []jsonCase{
		{"no configuration", "POST", valid, 500, "no rate limit configuration loaded"},
	})
}

// TestJSONHandlerMethods: the reference's conventions take a request by
// any method, rlpkit's only by POST.
func TestJSONHandlerMethods(t *testing.T) {
	body := `{"domain":"d","descriptors":[{"entries":[{"key":"k","value":"j"}]}]}`
	for _, tc := range []struct {
		conv *Conventions
		want int
	}{{&EnvoyRateLimit, 200}, {&RLPKit, 405}} {
		rec := httptest.NewRecorder()
		newRatelimitService(t, Options{Conventions: tc.conv}, true).JSONHandler().ServeHTTP(rec, httptest.NewRequest("PUT", "/json", strings.NewReader(body)))
		if rec.Code != tc.want {
			t.Errorf("PUT /json (%s) = %d %q, want %d", tc.conv.Prefix, rec.Code, rec.Body, tc.want)
		}
	}
}

// TestRatelimitOverGRPC serves two Services alike, one behind a gRPC server
// with ServerOptions and Register, and checks that every answer crosses
// the wire unchanged, response headers and an over-limit answer included.
func TestRatelimitOverGRPC(t *testing.T) {
	served, direct := newRatelimitService(t, Options{ResponseHeaders: true}, true), newRatelimitService(t, Options{ResponseHeaders: true}, true)
	client := serveLoopback(t, served)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req := rreq("d", d("k", "a"), d("h", "a"), d("none", "x"))
	for i := range 3 { // the limit on k admits 2 a minute
		want, err := direct.ShouldRateLimit(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		got, err := client.ShouldRateLimit(ctx, req)
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
			t.Errorf("call %d over gRPC (-direct +served):\n%s", i, diff)
		}
	}
	_, err := client.ShouldRateLimit(ctx, rreq(""))
	if st := status.Convert(err); st.Code() != codes.Unknown || !strings.Contains(st.Message(), "rate limit domain must not be empty") {
		t.Errorf("ShouldRateLimit(empty domain) over gRPC = %v, want the Service's Unknown", err)
	}
}
