package rls

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	rlcommon "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"google.golang.org/grpc/codes"
	grpcstatus "google.golang.org/grpc/status"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

var shopLimits = []limitador.Limit{
	{Namespace: "shop", MaxValue: 2, Seconds: 60, Variables: []string{"user"}, Name: "per user"},
	{Namespace: "shop", MaxValue: 3, Seconds: 1, Conditions: []string{"path == '/cart'"}, Name: "cart"},
}

const (
	minute = rlsv3.RateLimitResponse_RateLimit_MINUTE
	second = rlsv3.RateLimitResponse_RateLimit_SECOND
)

type step struct {
	req  *rlsv3.RateLimitRequest
	want *rlsv3.RateLimitResponse
}

func resp(code rlsv3.RateLimitResponse_Code, statuses ...*rlsv3.RateLimitResponse_DescriptorStatus) *rlsv3.RateLimitResponse {
	return &rlsv3.RateLimitResponse{OverallCode: code, Statuses: statuses}
}

func TestShouldRateLimit(t *testing.T) {
	alice := func() *rlcommon.RateLimitDescriptor { return desc("user", "alice") }
	bob := func() *rlcommon.RateLimitDescriptor { return desc("user", "bob") }
	perUser := func(code rlsv3.RateLimitResponse_Code, remaining uint32) *rlsv3.RateLimitResponse_DescriptorStatus {
		return limited(code, "per user", 2, minute, remaining, 60*time.Second)
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{
			name: "OK until the limit, then OVER_LIMIT; counters per variable value",
			steps: []step{
				{request("shop", 0, alice()), resp(ok, perUser(ok, 1))},
				{request("shop", 0, alice()), resp(ok, perUser(ok, 0))},
				{request("shop", 0, alice()), resp(over, perUser(over, 0))},
				{request("shop", 0, bob()), resp(ok, perUser(ok, 1))},
			},
		},
		{
			// When one descriptor is over, nothing is consumed: the others report
			// their counters as they stand.
			name: "a status per descriptor in request order; nothing consumed when one is over",
			steps: []step{
				{request("shop", 2, alice()), resp(ok, perUser(ok, 0))},
				// Each limit is evaluated once per request and reported on the
				// descriptors it read: cart on the first, per user on the third.
				{request("shop", 0, desc("path", "/cart"), desc("other", "x"), alice()),
					resp(over, limited(ok, "cart", 3, second, 3, time.Second), unlimited(), perUser(over, 0))},
				{request("shop", 0, desc("path", "/cart")), resp(ok, limited(ok, "cart", 3, second, 2, time.Second))},
			},
		},
		{
			name: "the most restrictive applying limit is the current limit",
			steps: []step{
				{request("shop", 0, desc("path", "/cart", "user", "alice")), resp(ok, perUser(ok, 1))},
				{request("shop", 0, desc("path", "/cart", "user", "alice")), resp(ok, perUser(ok, 0))},
				{request("shop", 0, desc("path", "/cart")), resp(ok, limited(ok, "cart", 3, second, 0, time.Second))},
				{request("shop", 0, desc("path", "/cart")), resp(over, limited(over, "cart", 3, second, 0, time.Second))},
			},
		},
		{
			name: "a descriptor's override replaces the configured limits",
			steps: []step{
				{request("shop", 0, withOverride(alice(), 1, typev3.RateLimitUnit_SECOND)), resp(ok, limited(ok, "", 1, second, 0, time.Second))},
				{request("shop", 0, withOverride(alice(), 1, typev3.RateLimitUnit_SECOND)), resp(over, limited(over, "", 1, second, 0, time.Second))},
				{request("shop", 0, alice()), resp(ok, perUser(ok, 1))},
				{request("elsewhere", 0, withOverride(desc("k", "v"), 1, typev3.RateLimitUnit_MINUTE)), resp(ok, limited(ok, "", 1, minute, 0, 50*time.Second))},
				{request("elsewhere", 0, withOverride(desc("k", "v"), 1, typev3.RateLimitUnit_MINUTE)), resp(over, limited(over, "", 1, minute, 0, 50*time.Second))},
			},
		},
		{
			name: "request hits_addend; 0 means 1",
			steps: []step{
				{request("shop", 0, alice()), resp(ok, perUser(ok, 1))},
				{request("shop", 2, alice()), resp(over, perUser(over, 1))},
				{request("shop", 1, alice()), resp(ok, perUser(ok, 0))},
			},
		},
		{
			name: "a descriptor's hits_addend replaces the request's",
			steps: []step{
				{request("shop", 5, withHits(alice(), 1)), resp(ok, perUser(ok, 1))},
				{request("shop", 5, alice()), resp(over, perUser(over, 1))},
				{request("shop", 5, withHits(alice(), 1)), resp(ok, perUser(ok, 0))},
			},
		},
		{
			name: "an explicit hits_addend 0 checks without consuming",
			steps: []step{
				{request("shop", 0, withHits(alice(), 0)), resp(ok, perUser(ok, 2))},
				{request("shop", 0, withHits(alice(), 0)), resp(ok, perUser(ok, 2))},
				{request("shop", 2, alice()), resp(ok, perUser(ok, 0))},
				// Only going over is over: a check on a full counter is OK.
				{request("shop", 0, withHits(alice(), 0)), resp(ok, perUser(ok, 0))},
				{request("shop", 0, alice()), resp(over, perUser(over, 0))},
			},
		},
		{
			name: "a domain without limits answers OK without current limits",
			steps: []step{
				{request("nowhere", 0, alice(), bob()), resp(ok, unlimited(), unlimited())},
			},
		},
		{
			name: "no descriptors: OK and no statuses",
			steps: []step{
				{request("shop", 0), resp(ok)},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newService(t, shopLimits, false)
			for i, st := range tc.steps {
				got, err := s.ShouldRateLimit(context.Background(), st.req)
				if err != nil {
					t.Fatalf("step %d: ShouldRateLimit(%v) error %v", i, st.req, err)
				}
				if diff := cmp.Diff(st.want, got, protocmp.Transform()); diff != "" {
					t.Errorf("step %d: ShouldRateLimit(%v) mismatch (-want +got):\n%s", i, st.req, diff)
				}
			}
		})
	}
}

func TestShouldRateLimitErrors(t *testing.T) {
	negative := desc("user", "alice")
	negative.IsNegativeHits = true
	multiplied := withOverride(desc("user", "alice"), 1, typev3.RateLimitUnit_SECOND)
	multiplied.Limit.UnitMultiplier = wrapperspb.UInt32(30)
	multipliedOne := withOverride(desc("user", "alice"), 1, typev3.RateLimitUnit_SECOND)
	multipliedOne.Limit.UnitMultiplier = wrapperspb.UInt32(1)
	tests := []struct {
		name  string
		store counter.Store
		req   *rlsv3.RateLimitRequest
		code  codes.Code
		msg   string
	}{
		{"empty domain", nil, request("", 0, desc("user", "alice")), codes.InvalidArgument, "rls: invalid request: domain: empty"},
		{"descriptor without entries", nil, request("shop", 0, desc("user", "a"), desc()), codes.InvalidArgument, "rls: invalid request: descriptors[1].entries: empty"},
		{"nil descriptor", nil, request("shop", 0, nil), codes.InvalidArgument, "rls: invalid request: descriptors[0].entries: empty"},
		{"empty key", nil, request("shop", 0, desc("user", "a", "", "b")), codes.InvalidArgument, "rls: invalid request: descriptors[0].entries[1].key: empty"},
		{"every problem at once", nil, request("", 0, desc(), desc("", "x")), codes.InvalidArgument,
			"rls: invalid request: domain: empty; descriptors[0].entries: empty; descriptors[1].entries[0].key: empty"},
		{"refund", nil, request("shop", 0, negative), codes.InvalidArgument, "rls: invalid request: descriptors[0].is_negative_hits: refunds are not supported"},
		{"unit multiplier", nil, request("shop", 0, multiplied), codes.InvalidArgument, "rls: invalid request: descriptors[0].limit.unit_multiplier: 30 is not supported, only 1"},
		{"unit multiplier 1 is fine", nil, request("shop", 0, multipliedOne), codes.OK, ""},
		{"store down", failingStore{errStoreDown}, request("shop", 0, desc("user", "a")), codes.Unavailable, "rls: counter store unavailable: connection refused"},
		{"store unreachable", failingStore{fmt.Errorf("limit/redis: update 1 counters: %w", &net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(10, 0, 0, 1), Port: 6379}, Err: errStoreDown})},
			request("shop", 0, desc("user", "a")), codes.Unavailable, "rls: counter store unavailable: dial tcp 10.0.0.1:6379: connection refused"},
		{"store timed out", failingStore{fmt.Errorf("limit/redis: update 1 counters: %w", context.DeadlineExceeded)},
			request("shop", 0, desc("user", "a")), codes.Unavailable, "rls: counter store unavailable: no answer in time"},
		{"store down, no counter needed", failingStore{errStoreDown}, request("shop", 0, desc("other", "a")), codes.OK, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			store := tc.store
			if store == nil {
				store = counter.NewMemoryStore(counter.MemoryOptions{})
			}
			var outcomes []Outcome
			s, err := New(shopLimits, Options{Store: store, Clock: fixedClock(t0), Observe: func(o Outcome) {
				o.Counters = nil // valid only during the call; TestObserveCounters checks them
				outcomes = append(outcomes, o)
			}})
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.ShouldRateLimit(context.Background(), tc.req)
			st := grpcstatus.Convert(err)
			if st.Code() != tc.code || st.Message() != tc.msg {
				t.Errorf("ShouldRateLimit(%v) = %v, %v (%q), want code %v (%q)", tc.req, got, st.Code(), st.Message(), tc.code, tc.msg)
			}
			if err != nil && got != nil {
				t.Errorf("ShouldRateLimit(%v) = %v with error %v, want nil response", tc.req, got, err)
			}
			want := []Outcome{{Domain: tc.req.GetDomain(), Descriptors: len(tc.req.GetDescriptors()), Configured: tc.req.GetDomain() == "shop", Code: tc.code}}
			if tc.code == codes.OK {
				want[0].Overall = rlsmsg.CodeOK
			}
			if diff := cmp.Diff(want, outcomes, cmpopts.IgnoreFields(Outcome{}, "Err", "Duration")); diff != "" {
				t.Errorf("outcomes mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNew(t *testing.T) {
	if _, err := New(shopLimits, Options{}); err == nil || err.Error() != "rls: New needs a store" {
		t.Errorf("New(limits, no store) error = %v, want rls: New needs a store", err)
	}
	bad := []limitador.Limit{{Namespace: "shop", MaxValue: 1, Seconds: 0}}
	_, err := New(bad, Options{Store: counter.NewMemoryStore(counter.MemoryOptions{})})
	if err == nil || !strings.Contains(err.Error(), "[0].seconds") {
		t.Errorf("New(seconds 0) error = %v, want one naming [0].seconds", err)
	}
}

func TestSetLimits(t *testing.T) {
	s := newService(t, shopLimits, false)
	call := func() *rlsv3.RateLimitResponse {
		t.Helper()
		got, err := s.ShouldRateLimit(context.Background(), request("shop", 0, desc("user", "alice")))
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	call() // one hit of 2 on "per user"

	// Same identity, new maximum: the counter carries over.
	raised := []limitador.Limit{{Namespace: "shop", MaxValue: 5, Seconds: 60, Variables: []string{"user"}, Name: "per user"}}
	if err := s.SetLimits(raised); err != nil {
		t.Fatalf("SetLimits(raised) = %v", err)
	}
	want := resp(ok, limited(ok, "per user", 5, minute, 3, 60*time.Second))
	if diff := cmp.Diff(want, call(), protocmp.Transform()); diff != "" {
		t.Errorf("after SetLimits(raised) (-want +got):\n%s", diff)
	}
	if got := s.Limits(); got != 1 {
		t.Errorf("Limits() = %d, want 1", got)
	}

	// Invalid limits are refused and the old ones stay in force.
	bad := []limitador.Limit{{Namespace: "shop", MaxValue: 1, Seconds: 60, Conditions: []string{"user =="}}}
	if err := s.SetLimits(bad); err == nil || !strings.Contains(err.Error(), "[0].conditions[0]") {
		t.Errorf("SetLimits(bad) = %v, want an error naming [0].conditions[0]", err)
	}
	want = resp(ok, limited(ok, "per user", 5, minute, 2, 60*time.Second))
	if diff := cmp.Diff(want, call(), protocmp.Transform()); diff != "" {
		t.Errorf("after SetLimits(bad) (-want +got):\n%s", diff)
	}
}

// TestSetLimitsUnderLoad swaps limits of the same identity while requests run
// in parallel: every request sees whole limits and the counter stays exact.
func TestSetLimitsUnderLoad(t *testing.T) {
	const (
		workers = 8
		each    = 100
		max     = 300
	)
	limits := []limitador.Limit{{Namespace: "shop", MaxValue: max, Seconds: 60, Variables: []string{"user"}}}
	s := newService(t, limits, false)
	var wg sync.WaitGroup
	var mu sync.Mutex
	admitted := 0
	stop := make(chan struct{})
	swapped := make(chan int)
	go func() {
		n := 0
		for {
			select {
			case <-stop:
				swapped <- n
				return
			default:
			}
			if err := s.SetLimits(limits); err != nil {
				t.Error(err)
			}
			n++
		}
	}()
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				got, err := s.ShouldRateLimit(context.Background(), request("shop", 0, desc("user", "alice")))
				if err != nil {
					t.Errorf("worker %d request %d: %v", w, i, err)
					return
				}
				if got.GetOverallCode() == ok {
					mu.Lock()
					admitted++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	if n := <-swapped; n == 0 {
		t.Log("no swap happened during the requests")
	}
	if admitted != max {
		t.Errorf("admitted %d of %d requests, want exactly %d", admitted, workers*each, max)
	}
}

func TestShouldRateLimitResponseHeaders(t *testing.T) {
	s := newService(t, shopLimits, true)
	tests := []struct {
		req  *rlsv3.RateLimitRequest
		want map[string]string
	}{
		{request("shop", 0, desc("user", "alice")), map[string]string{HeaderLimit: "2", HeaderRemaining: "1", HeaderReset: "60"}},
		{request("shop", 0, desc("path", "/cart"), desc("user", "alice")), map[string]string{HeaderLimit: "2", HeaderRemaining: "0", HeaderReset: "60"}},
		{request("shop", 0, desc("user", "alice"), desc("path", "/cart")), map[string]string{HeaderLimit: "2", HeaderRemaining: "0", HeaderReset: "60", HeaderRetryAfter: "60"}},
		{request("shop", 0, desc("other", "x")), nil},
	}
	for i, tc := range tests {
		got, err := s.ShouldRateLimit(context.Background(), tc.req)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, headerMap(got)); diff != "" {
			t.Errorf("step %d: ShouldRateLimit(%v) headers (-want +got):\n%s", i, tc.req, diff)
		}
	}
}

func headerMap(r *rlsv3.RateLimitResponse) map[string]string {
	if len(r.GetResponseHeadersToAdd()) == 0 {
		return nil
	}
	m := make(map[string]string)
	for _, h := range r.GetResponseHeadersToAdd() {
		if _, dup := m[h.GetKey()]; dup {
			m[h.GetKey()] = fmt.Sprintf("duplicate of %q", m[h.GetKey()])
			continue
		}
		m[h.GetKey()] = h.GetValue()
	}
	return m
}

// ctxStore fails every update with its context's error, wrapped as a store
// wraps it, as a store does when the caller gives up.
type ctxStore struct{}

func (ctxStore) Update(ctx context.Context, _ time.Time, _ []counter.Update, _ []counter.Decision) error {
	<-ctx.Done()
	return fmt.Errorf("limit/redis: update 1 counters: %w", ctx.Err())
}

// TestShouldRateLimitCallerGaveUp checks that a caller's cancellation or
// deadline is answered as such, not as an unavailable store.
func TestShouldRateLimitCallerGaveUp(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel2()
	tests := []struct {
		name string
		ctx  context.Context
		code codes.Code
		msg  string
	}{
		{"canceled", canceled, codes.Canceled, "rls: the call was canceled before the counter store answered"},
		{"deadline", expired, codes.DeadlineExceeded, "rls: the call's deadline passed before the counter store answered"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var outcomes []Outcome
			s, err := New(shopLimits, Options{Store: ctxStore{}, Clock: fixedClock(t0), Observe: func(o Outcome) { outcomes = append(outcomes, o) }})
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.ShouldRateLimit(tc.ctx, request("shop", 0, desc("user", "a")))
			if st := grpcstatus.Convert(err); st.Code() != tc.code || st.Message() != tc.msg {
				t.Errorf("ShouldRateLimit = %v (%q), want %v (%q)", st.Code(), st.Message(), tc.code, tc.msg)
			}
			want := []Outcome{{Domain: "shop", Descriptors: 1, Configured: true, Code: tc.code}}
			if diff := cmp.Diff(want, outcomes, cmpopts.IgnoreFields(Outcome{}, "Err", "Duration")); diff != "" {
				t.Errorf("outcomes mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNearDeadline checks which cancellations count as the caller's
// deadline passing: those in the last tenth of the time the call had when
// it arrived, as a client's own cancellation at its deadline arrives.
func TestNearDeadline(t *testing.T) {
	start := time.Now()
	deadline := start.Add(300 * time.Millisecond)
	withDeadline, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	tests := []struct {
		name string
		ctx  context.Context
		now  time.Time
		want bool
	}{
		{"at the deadline", withDeadline, deadline, true},
		{"5 ms before it", withDeadline, deadline.Add(-5 * time.Millisecond), true},
		{"30 ms before it", withDeadline, deadline.Add(-30 * time.Millisecond), true},
		{"31 ms before it", withDeadline, deadline.Add(-31 * time.Millisecond), false},
		{"just after arriving", withDeadline, start.Add(time.Millisecond), false},
		{"no deadline", context.Background(), deadline, false},
	}
	for _, tc := range tests {
		if got := nearDeadline(tc.ctx, start, tc.now); got != tc.want {
			t.Errorf("%s: nearDeadline = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestObserveCounters checks the counters an Outcome lists: each limit
// applied with its hits and decision, and the limits a failed store was to
// update.
func TestObserveCounters(t *testing.T) {
	type counted struct {
		Name    string
		Cost    uint64
		Allowed bool
	}
	tests := []struct {
		name  string
		store counter.Store
		req   *rlsv3.RateLimitRequest
		code  codes.Code
		want  []counted
	}{
		{"decided", counter.NewMemoryStore(counter.MemoryOptions{}), request("shop", 0, withHits(desc("user", "alice", "path", "/cart"), 3)), codes.OK,
			[]counted{{"per user", 3, false}, {"cart", 3, true}}},
		{"store down", failingStore{errStoreDown}, request("shop", 2, desc("user", "alice")), codes.Unavailable,
			[]counted{{"per user", 2, false}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []counted
			var code codes.Code
			s, err := New(shopLimits, Options{Store: tc.store, Clock: fixedClock(t0), Observe: func(o Outcome) {
				code = o.Code
				for _, c := range o.Counters {
					got = append(got, counted{c.Limit.Name, c.Cost, c.Decision.Allowed})
				}
			}})
			if err != nil {
				t.Fatal(err)
			}
			s.ShouldRateLimit(context.Background(), tc.req)
			if code != tc.code {
				t.Errorf("Outcome.Code = %v, want %v", code, tc.code)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Outcome.Counters mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
