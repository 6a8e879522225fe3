package rls

import (
	"context"
	"errors"
	"fmt"
	"net"
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
	// Code is the gRPC status of the call: codes.OK, codes.InvalidArgument,
	// codes.Unavailable (the store failed), or codes.Canceled and
	// codes.DeadlineExceeded (the caller gave up before the answer; not a
	// store failure).
	Code codes.Code
	// Overall is the response's overall code when Code is codes.OK, else
	// limit.CodeUnknown.
	Overall limit.Code
	// Counters lists the counters the request was evaluated against, with
	// the store's decisions (see limit.Response.Counters), when Code is
	// codes.OK, and with zero decisions when it is codes.Unavailable. It is
	// only valid during the Observe call: the Service reuses its storage.
	Counters []limit.Counted
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
// are an error (a fielderr.List) and leave the current ones in force.
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
// that cannot be evaluated, Unavailable when the store cannot answer, and
// Canceled or DeadlineExceeded when the caller gave up (ctx is done) before
// the store answered.
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
		var msg string
		out.Code, msg = failure(ctx, err)
		if out.Code == codes.Unavailable {
			out.Counters = sc.resp.Counters
		}
		s.observe(out)
		return nil, status.Error(out.Code, msg)
	}
	resp := response(&sc.resp)
	if s.opts.ResponseHeaders {
		resp.ResponseHeadersToAdd = ResponseHeaders(resp)
	}
	out.Code, out.Overall, out.Counters = codes.OK, sc.resp.Code, sc.resp.Counters
	s.observe(out)
	return resp, nil
}

// failure returns the gRPC code and message for an evaluation error. A
// caller that gave up (ctx done) is told so, whatever the store said about
// it; the message carries one "rls:" prefix and the cause.
func failure(ctx context.Context, err error) (codes.Code, string) {
	// A client whose deadline passes may also cancel the call itself, so a
	// passed deadline wins over the cancellation that may have come first.
	deadline, hasDeadline := ctx.Deadline()
	switch ctxErr := ctx.Err(); {
	case ctxErr != nil && (errors.Is(ctxErr, context.DeadlineExceeded) || hasDeadline && !time.Now().Before(deadline)):
		return codes.DeadlineExceeded, "rls: the call's deadline passed before the counter store answered"
	case ctxErr != nil:
		return codes.Canceled, "rls: the call was canceled before the counter store answered"
	case errors.Is(err, limit.ErrEmptyDomain):
		return codes.InvalidArgument, "rls: invalid request: domain: empty"
	}
	var se *limit.StoreError
	if errors.As(err, &se) {
		return codes.Unavailable, "rls: counter store unavailable: " + storeCause(se.Err)
	}
	return codes.Unavailable, "rls: " + err.Error()
}

// storeCause describes why a store failed without the chain of package
// prefixes its error collected on the way up: the network error when there
// is one ("dial tcp 10.0.0.1:6379: connect: connection refused"), a timeout
// as such, else the store's own message.
func storeCause(err error) string {
	var opErr *net.OpError
	switch {
	case errors.As(err, &opErr):
		return opErr.Error()
	case errors.Is(err, context.DeadlineExceeded):
		return "no answer in time"
	}
	return err.Error()
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
