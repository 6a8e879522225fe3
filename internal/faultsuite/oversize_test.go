package faultsuite

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	rlcommon "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// The default request caps of both servers.
const (
	maxDescriptors = 1024
	maxEntries     = 64
	maxKeyBytes    = 256 << 10
)

// oversized are requests past one cap each, by name.
func oversized() map[string]*rlsv3.RateLimitRequest {
	wide := bigRequest(1, 1)
	for i := range maxEntries {
		wide.Descriptors[0].Entries = append(wide.Descriptors[0].Entries, &rlcommon.RateLimitDescriptor_Entry{Key: fmt.Sprintf("e%d", i), Value: "v"})
	}
	return map[string]*rlsv3.RateLimitRequest{
		"descriptors": bigRequest(maxDescriptors+1, 1),
		"entries":     wide,
		"key bytes":   bigRequest(maxDescriptors, maxKeyBytes/maxDescriptors+1),
		"frame":       bigRequest(4, 4<<20), // 16 MiB: past any receive limit
	}
}

// TestOversizeBesideWellBehaved sends requests at the caps and past them in
// a loop beside a client of one-descriptor calls, and reports that
// client's latency unloaded and loaded; the requests past a cap must be
// refused, the ones at the caps answered.
func TestOversizeBesideWellBehaved(t *testing.T) {
	limits := "- {namespace: " + faultDomain + ", max_value: 1000000000, seconds: 3600, variables: [user]}\n"
	config := "domain: " + faultDomain + "\ndescriptors:\n  - key: user\n    rate_limit: {unit: hour, requests_per_unit: 1000000000}\n"
	for _, tc := range []struct {
		name    string
		refused codes.Code
		start   func(t *testing.T) *server
	}{
		{"rlpkit serve", codes.InvalidArgument, func(t *testing.T) *server {
			return startRlpkit(t, "--limits", writeTemp(t, "limits.yaml", limits))
		}},
		{"cmd/ratelimit", codes.Unknown, func(t *testing.T) *server {
			return startRatelimit(t, config, "BACKEND_TYPE=memory")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := tc.start(t)
			checkCaps(t, srv, tc.refused)
			unloaded := wellBehaved(t, srv.client, 1500*time.Millisecond, nil)
			stop := make(chan struct{})
			var heavy sync.WaitGroup
			var sent, refused atomic.Int64
			heavy.Add(1)
			go func() {
				defer heavy.Done()
				hostile(srv.client, stop, &sent, &refused)
			}()
			loaded := wellBehaved(t, srv.client, 3*time.Second, stop)
			heavy.Wait()
			t.Logf("%s: well-behaved client p50/p99 unloaded %v/%v, loaded %v/%v (%.1fx at p99) beside %d requests at and past the caps, %d refused",
				tc.name, unloaded.p(50), unloaded.p(99), loaded.p(50), loaded.p(99),
				float64(loaded.p(99))/float64(max(unloaded.p(99), 1)), sent.Load(), refused.Load())
			if refused.Load() == 0 || refused.Load() >= sent.Load() {
				t.Errorf("%d of %d hostile requests refused; want the ones past a cap (half) refused and the others answered", refused.Load(), sent.Load())
			}
		})
	}
}

// checkCaps sends one request at the caps, which must be answered, and
// each oversized one, which must be refused: with code, naming the cap,
// or ResourceExhausted for a frame past the receive limit.
func checkCaps(t *testing.T, srv *server, code codes.Code) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := srv.client.ShouldRateLimit(ctx, bigRequest(maxDescriptors, maxKeyBytes/maxDescriptors-8)); err != nil {
		t.Errorf("%s: a request at the caps: %v, want an answer", srv.name, err)
	}
	for name, req := range oversized() {
		_, err := srv.client.ShouldRateLimit(ctx, req, grpc.MaxCallSendMsgSize(64<<20))
		want := code
		if name == "frame" {
			want = codes.ResourceExhausted
		}
		if st := status.Convert(err); st.Code() != want || name != "frame" && !strings.Contains(st.Message(), strings.Fields(name)[0]) {
			t.Errorf("%s: a request past the %s cap: %v; want %v naming the cap", srv.name, name, err, want)
		}
	}
}

// hostile is one client sending, until stop is closed, requests at the caps
// and past them in turn, one after another, counting the sent and the
// refused.
func hostile(c rlsv3.RateLimitServiceClient, stop <-chan struct{}, sent, refused *atomic.Int64) {
	over := oversized()
	names := []string{"descriptors", "entries", "key bytes"}
	atCaps := bigRequest(maxDescriptors, maxKeyBytes/maxDescriptors-8)
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		req := atCaps
		if i%2 == 1 {
			req = over[names[(i/2)%len(names)]]
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := c.ShouldRateLimit(ctx, req)
		cancel()
		sent.Add(1)
		if err != nil {
			refused.Add(1)
		}
	}
}

// latencies are a client's call durations.
type latencies []time.Duration

// p returns the q-th percentile.
func (l latencies) p(q int) time.Duration {
	if len(l) == 0 {
		return 0
	}
	s := slices.Clone(l)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*q/100)]
}

// wellBehaved sends one-descriptor calls one after another for d, then
// closes stop when it is not nil, and returns their latencies; a failed
// call fails the test.
func wellBehaved(t *testing.T, c rlsv3.RateLimitServiceClient, d time.Duration, stop chan struct{}) latencies {
	t.Helper()
	if stop != nil {
		defer close(stop)
	}
	var out latencies
	req := &rlsv3.RateLimitRequest{Domain: faultDomain, Descriptors: []*rlcommon.RateLimitDescriptor{{Entries: []*rlcommon.RateLimitDescriptor_Entry{{Key: "user", Value: users[0]}}}}}
	for end := time.Now().Add(d); time.Now().Before(end); {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		start := time.Now()
		_, err := c.ShouldRateLimit(ctx, req)
		out = append(out, time.Since(start))
		cancel()
		if err != nil {
			t.Fatalf("well-behaved call: %v", err)
		}
	}
	return out
}
