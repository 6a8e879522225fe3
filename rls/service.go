package rls

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// Options configures a Service. The zero value of every field is a
// sensible default.
type Options struct {
	// Evaluator decides the requests; nil until SetEvaluator or SetLimits
	// gives one, every call failing with Conventions.NoConfig meanwhile.
	Evaluator limit.Evaluator
	// Store keeps the counters of the Limitador-style limits given to New
	// and SetLimits; required by them, unused otherwise.
	Store counter.Store
	// TagBy chooses the Redis Cluster hash tag of those limits' counter
	// keys (limitador.WithTagBy); the zero value tags them by domain.
	TagBy limit.TagBy
	// Clock gives the instant of each decision; nil means time.Now. A store
	// with a clock of its own (Redis TIME) may use that instead.
	Clock func() time.Time
	// Conventions are the answers that differ by format; the zero value
	// means RLPKit.
	Conventions *Conventions
	// ResponseHeaders adds the RateLimit header fields (see
	// ResponseHeaders) to every response in which a limit applies.
	ResponseHeaders bool
	// Caps bound the size of a request (see RequestCaps); a field of 0
	// means its default. A server's gRPC receive limit follows them (see
	// Service.ServerOptions).
	Caps RequestCaps
	// Observe, when set, is called once per call, after the answer is
	// built and before it is returned, from the calling goroutine. It must
	// be safe for concurrent use and quick: it is on the request path.
	Observe func(Outcome)
	// CheckReport configures CheckRateLimit and Report (RegisterKuadrant);
	// the zero value is Limitador's semantics.
	CheckReport CheckReport
}

// Outcome describes one ShouldRateLimit call, for metrics.
type Outcome struct {
	// Method is the RPC of kuadrant.service.ratelimit.v1.RateLimitService,
	// "CheckRateLimit" or "Report"; empty for Envoy's ShouldRateLimit.
	Method string
	// Domain is the request's domain.
	Domain string
	// Descriptors is the number of the request's descriptors.
	Descriptors int
	// Configured reports whether the evaluator in force has configuration
	// for this domain. A server labelling metrics by domain should
	// collapse unconfigured domains, which clients choose freely.
	Configured bool
	// Code is the gRPC status of the call: codes.OK, the conventions'
	// codes for an invalid request, a store failure or no configuration,
	// or codes.Canceled and codes.DeadlineExceeded (the caller gave up
	// before the answer; not a store failure).
	Code codes.Code
	// Err is the evaluation's error when Code is not codes.OK: a
	// *limit.InvalidRequestError, a *limit.StoreError, ErrNoConfig, or the
	// context's error.
	Err error
	// Overall is the response's overall code when Code is codes.OK, else
	// rlsmsg.CodeUnknown.
	Overall rlsmsg.Code
	// ShadowedOverLimit is set when a shadow mode turned an over-limit
	// answer into OK.
	ShadowedOverLimit bool
	// Counters lists the counters the request was evaluated against, with
	// the store's decisions (see limit.Result.Counters), when Code is
	// codes.OK, and with zero decisions after a store failure. It is only
	// valid during the Observe call: the Service reuses its storage.
	Counters []limit.Counted
	// Duration is the time the call took, from decoding to the answer.
	Duration time.Duration
}

// ErrNoConfig is the error of a call made before any configuration was
// loaded.
var ErrNoConfig = errors.New("no rate limit configuration loaded")

// Service is Envoy's RateLimitService over a limit.Evaluator that can be
// replaced while it serves. Register it on a *grpc.Server with Register
// (the codec path, see ServerOptions) or, with go-control-plane's message
// types, with rlsv3.RegisterRateLimitServiceServer.
//
// A Service is safe for concurrent use: calls run in parallel with each
// other and with SetEvaluator. Create one with New or NewService.
type Service struct {
	rlsv3.UnimplementedRateLimitServiceServer

	opts    Options
	conv    *Conventions
	caps    RequestCaps // opts.Caps with the defaults
	current atomic.Pointer[generation]
	calls   sync.Pool // *call
}

var _ rlsv3.RateLimitServiceServer = (*Service)(nil)

// generation is one evaluator, replaced as a whole.
type generation struct {
	eval  limit.Evaluator
	count int
}

// NewService returns a Service answering with opts.Evaluator (none yet
// when nil).
func NewService(opts Options) *Service {
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	s := &Service{opts: opts, conv: opts.Conventions, caps: opts.Caps.withDefaults()}
	if s.conv == nil {
		s.conv = &RLPKit
	}
	decCaps := s.caps.decoderCaps()
	s.calls.New = func() any {
		c := new(call)
		c.dec.Caps = decCaps
		return c
	}
	if opts.Evaluator != nil {
		s.SetEvaluator(opts.Evaluator, 0)
	}
	return s
}

// New returns a Service enforcing Limitador-style limits (validated as
// limitador.NewEvaluator does) with the counters of opts.Store.
func New(limits []limitador.Limit, opts Options) (*Service, error) {
	if opts.Store == nil {
		return nil, errors.New("rls: New needs a store")
	}
	s := NewService(opts)
	if err := s.SetLimits(limits); err != nil {
		return nil, err
	}
	return s, nil
}

// SetEvaluator replaces the evaluator atomically: every request is
// answered entirely by the old one or entirely by the new one. count is
// the number of limits it enforces, reported by Limits.
func (s *Service) SetEvaluator(e limit.Evaluator, count int) {
	s.current.Store(&generation{eval: e, count: count})
}

// SetLimits replaces the limits the Service enforces with Limitador-style
// limits over opts.Store, atomically. Counters are keyed by limit identity
// (see limitador.Limit), so a limit that keeps its identity keeps counting
// where it was. Invalid limits are an error and leave the current ones in
// force.
func (s *Service) SetLimits(limits []limitador.Limit) error {
	if s.opts.Store == nil {
		return errors.New("rls: SetLimits needs Options.Store")
	}
	eval, err := limitador.NewEvaluator(limits, s.opts.Store, limitador.WithTagBy(s.opts.TagBy))
	if err != nil {
		return fmt.Errorf("rls: %w", err)
	}
	s.SetEvaluator(eval, len(limits))
	return nil
}

// Limits returns the number of limits in force.
func (s *Service) Limits() int {
	if g := s.current.Load(); g != nil {
		return g.count
	}
	return 0
}

// Loaded reports whether the Service has an evaluator.
func (s *Service) Loaded() bool { return s.current.Load() != nil }

// call is the per-call state, pooled: the decoded request and its
// decoder's storage, and the result. It is also the message of Register's
// service: Codec decodes into it and encodes its response.
type call struct {
	svc     *Service
	method  method    // the RPC the call came in by
	start   time.Time // when the call arrived
	req     rlsmsg.Request
	dec     rlsmsg.RequestDecoder
	refused error // the invalid request of a request over a cap
	invalid bool  // the call failed as an invalid request
	res     limit.Result
}

// decoded returns the error of decoding the call's request, except for a
// request over a cap, which is refused as an invalid request when it is
// decided.
func (c *call) decoded(err error) error {
	if ce, ok := err.(*rlsmsg.CapError); ok {
		c.refused = c.svc.overCap(ce)
		return nil
	}
	return err
}

// decide answers req into c.res, returning the gRPC error to answer
// instead, if any.
func (s *Service) decide(ctx context.Context, c *call) error {
	out := Outcome{Method: c.method.outcome(), Domain: c.req.Domain, Descriptors: len(c.req.Descriptors)}
	err := s.evaluate(ctx, c)
	if err == nil {
		if s.opts.ResponseHeaders && c.method == methodShould {
			c.res.ResponseHeadersToAdd = responseHeaders(c.res.ResponseHeadersToAdd[:0], &c.res.Response, c.res.Quota, s.conv)
		}
		out.Code, out.Overall = codes.OK, c.res.OverallCode
	}
	out.Configured, out.ShadowedOverLimit = c.res.Configured, c.res.ShadowedOverLimit
	var gerr error
	if err != nil {
		var msg string
		out.Code, msg = s.failure(ctx, c.start, err)
		out.Err = err
		c.invalid = errors.As(err, new(*limit.InvalidRequestError))
		gerr = status.Error(out.Code, msg)
	}
	if s.opts.Observe != nil {
		if out.Code == codes.OK || out.Code == s.conv.StoreFailure && errors.As(err, new(*limit.StoreError)) {
			out.Counters = c.res.Counters
		}
		out.Duration = time.Since(c.start)
		s.opts.Observe(out)
	}
	return gerr
}

// evaluate runs the evaluator in force on c.req, unless it is over a cap.
func (s *Service) evaluate(ctx context.Context, c *call) error {
	c.res.Reset(len(c.req.Descriptors))
	if c.refused != nil {
		return c.refused
	}
	g := s.current.Load()
	if g == nil {
		return ErrNoConfig
	}
	c.res.Configured = g.eval.Configured(c.req.Domain)
	if c.method != methodShould {
		return s.checkReport(ctx, g.eval, c)
	}
	if s.conv.RequireEntries {
		if err := checkEntries(&c.req); err != nil {
			return err
		}
	}
	return g.eval.Evaluate(ctx, s.opts.Clock(), &c.req, &c.res)
}

// checkEntries refuses descriptors without entries and entries without a
// key (Conventions.RequireEntries).
func checkEntries(req *rlsmsg.Request) error {
	return limit.CheckRequest(req, func(problems []string, i int, d *rlsmsg.Descriptor) []string {
		if len(d.Entries) == 0 {
			problems = append(problems, fmt.Sprintf("descriptors[%d].entries: empty", i))
		}
		for j, e := range d.Entries {
			if e.Key == "" {
				problems = append(problems, fmt.Sprintf("descriptors[%d].entries[%d].key: empty", i, j))
			}
		}
		return problems
	})
}

// failure returns the gRPC code and message for an evaluation error of a
// call that arrived at start. A caller that gave up (ctx done) is told so,
// whatever the store said about it.
func (s *Service) failure(ctx context.Context, start time.Time, err error) (codes.Code, string) {
	var se *limit.StoreError
	var ie *limit.InvalidRequestError
	switch ctxErr := ctx.Err(); {
	case ctxErr != nil && (errors.Is(ctxErr, context.DeadlineExceeded) || nearDeadline(ctx, start, time.Now())):
		return codes.DeadlineExceeded, s.conv.Prefix + "the call's deadline passed before the counter store answered"
	case ctxErr != nil:
		return codes.Canceled, s.conv.Prefix + "the call was canceled before the counter store answered"
	case errors.As(err, &ie):
		return s.conv.InvalidRequest, s.conv.Prefix + ie.Error()
	case errors.Is(err, ErrNoCheckReport):
		return codes.Unimplemented, s.conv.Prefix + err.Error()
	case errors.Is(err, ErrNoConfig):
		return s.conv.NoConfig, err.Error()
	case errors.As(err, &se):
		return s.conv.StoreFailure, s.conv.Prefix + "counter store unavailable: " + storeCause(se.Err)
	}
	return s.conv.StoreFailure, s.conv.Prefix + err.Error()
}

// nearDeadline reports whether a call that arrived at start and was
// canceled at now was canceled by its deadline. A gRPC client cancels its
// call (RST_STREAM) when its own deadline passes, and the server's deadline,
// taken from the grpc-timeout header when the header arrived, falls later
// by the header's transit, so the cancellation often arrives first: a
// cancellation in the last tenth of the time the call had on arrival counts
// as its deadline passing.
func nearDeadline(ctx context.Context, start, now time.Time) bool {
	deadline, ok := ctx.Deadline()
	if !ok {
		return false
	}
	return deadline.Sub(now) <= deadline.Sub(start)/10
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
	return strings.TrimPrefix(err.Error(), "counter store: ")
}

// get returns a call from the pool, its arrival time set.
func (s *Service) get() *call {
	c := s.calls.Get().(*call)
	c.svc = s
	c.start = time.Now()
	return c
}

// release returns c to the pool without references into the request.
func (s *Service) release(c *call) {
	c.dec.Reset()
	c.req = rlsmsg.Request{}
	c.refused, c.invalid, c.method = nil, false, methodShould
	clear(c.res.Statuses)
	clear(c.res.Counters)
	clear(c.res.ResponseHeadersToAdd)
	c.res.ResponseHeadersToAdd = c.res.ResponseHeadersToAdd[:0]
	s.calls.Put(c)
}
