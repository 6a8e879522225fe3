package rls

import (
	"context"
	"errors"
	"testing"
	"time"

	rlcommon "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/limitador"
)

// t0 is 10 s into a minute, so a 60 s window resets in 50 s.
var t0 = time.Date(2024, 1, 1, 0, 0, 10, 0, time.UTC)

func fixedClock(t time.Time) func() time.Time { return func() time.Time { return t } }

// newService returns a service over a fresh memory store at the instant t0.
func newService(t testing.TB, limits []limitador.Limit, headers bool) *Service {
	t.Helper()
	s, err := New(limits, Options{Store: counter.NewMemoryStore(counter.MemoryOptions{}), Clock: fixedClock(t0), ResponseHeaders: headers})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s
}

// desc builds a descriptor from key, value pairs.
func desc(kv ...string) *rlcommon.RateLimitDescriptor {
	d := &rlcommon.RateLimitDescriptor{}
	for i := 0; i+1 < len(kv); i += 2 {
		d.Entries = append(d.Entries, &rlcommon.RateLimitDescriptor_Entry{Key: kv[i], Value: kv[i+1]})
	}
	return d
}

func withHits(d *rlcommon.RateLimitDescriptor, n uint64) *rlcommon.RateLimitDescriptor {
	d.HitsAddend = wrapperspb.UInt64(n)
	return d
}

func withOverride(d *rlcommon.RateLimitDescriptor, rpu uint32, unit typev3.RateLimitUnit) *rlcommon.RateLimitDescriptor {
	d.Limit = &rlcommon.RateLimitDescriptor_RateLimitOverride{RequestsPerUnit: rpu, Unit: unit}
	return d
}

func request(domain string, hits uint32, descs ...*rlcommon.RateLimitDescriptor) *rlsv3.RateLimitRequest {
	return &rlsv3.RateLimitRequest{Domain: domain, HitsAddend: hits, Descriptors: descs}
}

// status builds an expected descriptor status; unit < 0 means no current limit.
func limited(code rlsv3.RateLimitResponse_Code, name string, rpu uint32, unit rlsv3.RateLimitResponse_RateLimit_Unit, remaining uint32, reset time.Duration) *rlsv3.RateLimitResponse_DescriptorStatus {
	return &rlsv3.RateLimitResponse_DescriptorStatus{
		Code:               code,
		CurrentLimit:       &rlsv3.RateLimitResponse_RateLimit{Name: name, RequestsPerUnit: rpu, Unit: unit},
		LimitRemaining:     remaining,
		DurationUntilReset: durationpb.New(reset),
	}
}

func unlimited() *rlsv3.RateLimitResponse_DescriptorStatus {
	return &rlsv3.RateLimitResponse_DescriptorStatus{Code: rlsv3.RateLimitResponse_OK}
}

const (
	ok   = rlsv3.RateLimitResponse_OK
	over = rlsv3.RateLimitResponse_OVER_LIMIT
)

// failingStore answers every update with err.
type failingStore struct{ err error }

func (f failingStore) Update(context.Context, time.Time, []counter.Update, []counter.Decision) error {
	return f.err
}

var errStoreDown = errors.New("connection refused")
