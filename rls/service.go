package rls

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
)

// Options configures a Service. Store is required; the zero value of every
// other field is a sensible default.
type Options struct {
	// Store keeps the counters. Required.
	Store counter.Store
	// Clock gives the instant of each decision; nil means time.Now. A store
	// with a clock of its own (Redis TIME) may use that instead.
	Clock func() time.Time
	// ResponseHeaders adds RateLimit-Limit, RateLimit-Remaining,
	// RateLimit-Reset and, when over the limit, Retry-After to every response
	// in which a limit applies (see ResponseHeaders).
	ResponseHeaders bool
	// Observe, when set, is called once per ShouldRateLimit call, after the
	// answer is built and before it is returned, from the calling goroutine.
	// It must be safe for concurrent use and quick: it is on the request path.
	Observe func(Outcome)
}

// Outcome describes one ShouldRateLimit call, for metrics.
type Outcome struct {
	// Domain is the request's domain.
	Domain string
	// Configured reports whether the limits in force when the request was
	// answered have this domain. A server labelling metrics by domain should
	// collapse unconfigured domains, which clients choose freely.
	Configured bool
	// Code is the gRPC status of the call: codes.OK, codes.InvalidArgument
	// or codes.Unavailable.
	Code codes.Code
	// Overall is the response's overall code when Code is codes.OK, else
	// limit.CodeUnknown.
	Overall limit.Code
}

// Service implements envoy.service.ratelimit.v3.RateLimitService over a
// limit.Evaluator whose limits can be replaced while it serves. Register it
// with rlsv3.RegisterRateLimitServiceServer.
//
// A Service is safe for concurrent use: ShouldRateLimit calls run in
// parallel with each other and with SetLimits. The zero value is not usable;
// create one with New.
type Service struct {
	rlsv3.UnimplementedRateLimitServiceServer

	opts    Options
	current atomic.Pointer[limitSet]
	scratch sync.Pool
}

var _ rlsv3.RateLimitServiceServer = (*Service)(nil)

// limitSet is one generation of limits: replaced as a whole by SetLimits.
type limitSet struct {
	eval    *limit.Evaluator
	domains map[string]struct{}
	count   int
}

// New returns a Service enforcing limits (validated as limit.NewEvaluator
// does) with the counters of opts.Store.
func New(limits []limit.Limit, opts Options) (*Service, error) {
	if opts.Store == nil {
		return nil, errors.New("rls: New needs a store")
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	s := &Service{opts: opts}
	s.scratch.New = func() any { return new(scratch) }
	if err := s.SetLimits(limits); err != nil {
		return nil, err
	}
	return s, nil
}

// SetLimits replaces the limits the Service enforces, atomically: every
// request is answered entirely under the old limits or entirely under the
// new ones. Counters are keyed by limit identity (see limit.Limit), so a
// limit that keeps its identity keeps counting where it was. Invalid limits
// are an error (a limit.ErrorList) and leave the current ones in force.
func (s *Service) SetLimits(limits []limit.Limit) error {
	eval, err := limit.NewEvaluator(limits, s.opts.Store)
	if err != nil {
		return fmt.Errorf("rls: %w", err)
	}
	set := &limitSet{eval: eval, domains: make(map[string]struct{}), count: len(limits)}
	for _, l := range limits {
		set.domains[l.Namespace] = struct{}{}
	}
	s.current.Store(set)
	return nil
}

// Limits returns the number of limits in force.
func (s *Service) Limits() int {
	return s.current.Load().count
}

// ShouldRateLimit implements rlsv3.RateLimitServiceServer. It answers a
// status per descriptor, in request order; InvalidArgument for a request
// that cannot be evaluated and Unavailable when the store cannot answer.
func (s *Service) ShouldRateLimit(ctx context.Context, req *rlsv3.RateLimitRequest) (*rlsv3.RateLimitResponse, error) {
	set := s.current.Load()
	domain := req.GetDomain()
	_, configured := set.domains[domain]
	out := Outcome{Domain: domain, Configured: configured}

	sc := s.scratch.Get().(*scratch)
	defer s.release(sc)
	if err := sc.convert(req); err != nil {
		out.Code = codes.InvalidArgument
		s.observe(out)
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	if err := set.eval.Evaluate(ctx, s.opts.Clock(), &sc.req, &sc.resp); err != nil {
		out.Code = codes.Unavailable
		if errors.Is(err, limit.ErrEmptyDomain) {
			out.Code = codes.InvalidArgument
		}
		s.observe(out)
		return nil, status.Error(out.Code, "rls: "+err.Error())
	}
	resp := response(&sc.resp)
	if s.opts.ResponseHeaders {
		resp.ResponseHeadersToAdd = ResponseHeaders(resp)
	}
	out.Code, out.Overall = codes.OK, sc.resp.Code
	s.observe(out)
	return resp, nil
}

func (s *Service) observe(o Outcome) {
	if s.opts.Observe != nil {
		s.opts.Observe(o)
	}
}

// release returns sc to the pool without references into the request.
func (s *Service) release(sc *scratch) {
	sc.reset()
	s.scratch.Put(sc)
}
