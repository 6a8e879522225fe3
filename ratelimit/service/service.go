package service

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	rlv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/rlpkit/rlpkit/limit/envoyratelimit"
)

// The reference's default response header names.
const (
	DefaultHeaderLimit     = "RateLimit-Limit"
	DefaultHeaderRemaining = "RateLimit-Remaining"
	DefaultHeaderReset     = "RateLimit-Reset"
)

// Options configures a Service.
type Options struct {
	// Evaluator decides the requests; required.
	Evaluator *envoyratelimit.Evaluator
	// ResponseHeaders (LIMIT_RESPONSE_HEADERS_ENABLED) adds the RateLimit
	// header fields to responses, named by HeaderLimit, HeaderRemaining and
	// HeaderReset (the defaults above when empty).
	ResponseHeaders                           bool
	HeaderLimit, HeaderRemaining, HeaderReset string
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
	// Observe, when set, is called after every call with its outcome.
	Observe func(Outcome)
}

// Outcome is what a call did, for statistics.
type Outcome struct {
	// Err is the call's error, nil when it answered.
	Err error
	// Code is the overall code when it answered.
	Code rlsv3.RateLimitResponse_Code
	// Duration is the time the call took.
	Duration time.Duration
	// ShadowedOverLimit is set when global shadow mode turned an over-limit
	// answer into OK.
	ShadowedOverLimit bool
}

// Service implements rlsv3.RateLimitServiceServer over a ratelimit
// configuration. It is safe for concurrent use; create it with New.
type Service struct {
	rlsv3.UnimplementedRateLimitServiceServer
	o   Options
	cfg atomic.Pointer[envoyratelimit.Config]
}

var _ rlsv3.RateLimitServiceServer = (*Service)(nil)

// New returns a Service with no configuration loaded: every call fails until
// SetConfig, as the reference does.
func New(o Options) (*Service, error) {
	if o.Evaluator == nil {
		return nil, errors.New("service: no evaluator")
	}
	if o.HeaderLimit == "" {
		o.HeaderLimit = DefaultHeaderLimit
	}
	if o.HeaderRemaining == "" {
		o.HeaderRemaining = DefaultHeaderRemaining
	}
	if o.HeaderReset == "" {
		o.HeaderReset = DefaultHeaderReset
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Service{o: o}, nil
}

// SetConfig replaces the configuration atomically; calls in flight finish
// with the one they started with.
func (s *Service) SetConfig(c *envoyratelimit.Config) { s.cfg.Store(c) }

// Config returns the configuration in force, nil before the first one.
func (s *Service) Config() *envoyratelimit.Config { return s.cfg.Load() }

// ShouldRateLimit implements rlsv3.RateLimitServiceServer.
func (s *Service) ShouldRateLimit(ctx context.Context, req *rlsv3.RateLimitRequest) (*rlsv3.RateLimitResponse, error) {
	start := s.o.Now()
	resp, shadowed, err := s.decide(ctx, start, req)
	if s.o.Observe != nil {
		o := Outcome{Err: err, Duration: time.Since(start), ShadowedOverLimit: shadowed}
		if resp != nil {
			o.Code = resp.OverallCode
		}
		s.o.Observe(o)
	}
	if err != nil {
		return nil, status.Error(codes.Unknown, err.Error())
	}
	return resp, nil
}

func (s *Service) decide(ctx context.Context, now time.Time, req *rlsv3.RateLimitRequest) (*rlsv3.RateLimitResponse, bool, error) {
	r, err := convert(req)
	if err != nil {
		return nil, false, err
	}
	res, err := s.o.Evaluator.Evaluate(ctx, s.cfg.Load(), now, r)
	if err != nil {
		return nil, false, err
	}
	out := response(res)
	if s.o.ResponseHeaders {
		out.ResponseHeadersToAdd = s.headers(res)
	}
	return out, res.ShadowedOverLimit, nil
}

// convert turns an RLS request into a envoyratelimit.Request.
func convert(req *rlsv3.RateLimitRequest) (*envoyratelimit.Request, error) {
	r := &envoyratelimit.Request{Domain: req.GetDomain(), HitsAddend: uint64(req.GetHitsAddend()), Descriptors: make([]envoyratelimit.Descriptor, len(req.GetDescriptors()))}
	for i, d := range req.GetDescriptors() {
		if d.GetIsNegativeHits() {
			return nil, &envoyratelimit.InvalidRequestError{Msg: fmt.Sprintf("descriptors[%d].is_negative_hits: refunds are not supported", i)}
		}
		rd := &r.Descriptors[i]
		rd.Entries = make([]envoyratelimit.Entry, len(d.GetEntries()))
		for j, e := range d.GetEntries() {
			rd.Entries[j] = envoyratelimit.Entry{Key: e.GetKey(), Value: e.GetValue()}
		}
		if h := d.GetHitsAddend(); h != nil {
			rd.HitsAddend, rd.HasHitsAddend = h.GetValue(), true
		}
		if l := d.GetLimit(); l != nil {
			rd.Override = override(l)
		}
	}
	return r, nil
}

func override(l *rlv3.RateLimitDescriptor_RateLimitOverride) *envoyratelimit.Override {
	o := &envoyratelimit.Override{RequestsPerUnit: l.GetRequestsPerUnit(), Unit: envoyratelimit.Unit(l.GetUnit())}
	if m := l.GetUnitMultiplier(); m != nil {
		o.UnitMultiplier = m.GetValue()
	}
	return o
}

// response turns a envoyratelimit.Response into an RLS response.
func response(r *envoyratelimit.Response) *rlsv3.RateLimitResponse {
	out := &rlsv3.RateLimitResponse{OverallCode: rlsv3.RateLimitResponse_Code(r.Code), Statuses: make([]*rlsv3.RateLimitResponse_DescriptorStatus, len(r.Statuses))}
	for i, st := range r.Statuses {
		ds := &rlsv3.RateLimitResponse_DescriptorStatus{Code: rlsv3.RateLimitResponse_Code(st.Code), LimitRemaining: st.Remaining}
		if l := st.Limit; l != nil {
			ds.CurrentLimit = &rlsv3.RateLimitResponse_RateLimit{Name: l.Name, RequestsPerUnit: l.RequestsPerUnit, Unit: rlsv3.RateLimitResponse_RateLimit_Unit(l.Unit)}
			if l.UnitMultiplier > 1 {
				ds.CurrentLimit.UnitMultiplier = wrapperspb.UInt32(l.UnitMultiplier)
			}
			ds.DurationUntilReset = durationpb.New(st.ResetAfter)
		}
		out.Statuses[i] = ds
	}
	return out
}

// headers returns the RateLimit headers of the limited status with the
// least remaining, an over-limit one winning, or nil when none is limited.
func (s *Service) headers(r *envoyratelimit.Response) []*corev3.HeaderValue {
	var pick *envoyratelimit.Status
	for i := range r.Statuses {
		st := &r.Statuses[i]
		if st.Limit == nil {
			continue
		}
		if pick == nil || st.Code == envoyratelimit.CodeOverLimit && pick.Code != envoyratelimit.CodeOverLimit ||
			st.Code == pick.Code && st.Remaining < pick.Remaining {
			pick = st
		}
	}
	if pick == nil {
		return nil
	}
	return []*corev3.HeaderValue{
		{Key: s.o.HeaderLimit, Value: strconv.FormatUint(uint64(pick.Limit.RequestsPerUnit), 10)},
		{Key: s.o.HeaderRemaining, Value: strconv.FormatUint(uint64(pick.Remaining), 10)},
		{Key: s.o.HeaderReset, Value: strconv.FormatInt(int64(pick.ResetAfter/time.Second), 10)},
	}
}
