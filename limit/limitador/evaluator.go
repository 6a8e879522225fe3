package limitador

import (
	"context"
	"errors"
	"math"
	"strconv"
	"sync"
	"time"
	"unsafe"

	"github.com/rlpkit/rlpkit/limit/counter"
)

// Code is a rate-limit answer: Envoy's RateLimitResponse.Code, with the same
// numbers.
type Code int32

const (
	// CodeUnknown is never returned by the Evaluator.
	CodeUnknown Code = 0
	// CodeOK means under the limit.
	CodeOK Code = 1
	// CodeOverLimit means over the limit.
	CodeOverLimit Code = 2
)

// String returns Envoy's name of c: UNKNOWN, OK or OVER_LIMIT.
func (c Code) String() string {
	switch c {
	case CodeOK:
		return "OK"
	case CodeOverLimit:
		return "OVER_LIMIT"
	case CodeUnknown:
		return "UNKNOWN"
	}
	return "Code(" + strconv.Itoa(int(c)) + ")"
}

// Response is the answer to a Request: Envoy's RateLimitResponse.
type Response struct {
	// Code is CodeOverLimit when any descriptor is over the limit, else
	// CodeOK.
	Code Code
	// Statuses has one status per request descriptor, in request order.
	Statuses []DescriptorStatus
	// Counters has one entry per counter the request was evaluated against,
	// in evaluation order (the configured limits in order, then the
	// descriptors' overrides), for metrics: which limit, how many hits and
	// what the store decided. Evaluate reuses its storage as it reuses
	// Statuses'.
	Counters []Counted
}

// Counted is one counter of a request: the limit it belongs to, the hits
// asked for and the store's decision.
type Counted struct {
	// Descriptor is the index of the first request descriptor the counter
	// is reported on (a limit may be reported on several).
	Descriptor int
	// Limit is the limit the counter belongs to, as reported in statuses
	// (its Name empty for an unnamed limit and for an override). Shared: do
	// not modify it.
	Limit *RateLimit
	// Override reports whether the limit is the descriptor's own override
	// rather than a configured limit.
	Override bool
	// Cost is the counter's hits (0 for a check).
	Cost uint64
	// Decision is the store's decision; the zero Decision when the store
	// failed. When any counter of the request is over, nothing is consumed
	// and the allowed decisions are checks (see Store).
	Decision counter.Decision
}

// StoreError is the error Evaluate returns when the store cannot answer: a
// server should answer "unavailable" and let its clients' failure mode
// decide.
type StoreError struct {
	// Err is the store's error.
	Err error
}

// Error returns "limit: store: " and the store's error.
func (e *StoreError) Error() string { return "limit: store: " + e.Err.Error() }

// Unwrap returns the store's error.
func (e *StoreError) Unwrap() error { return e.Err }

// DescriptorStatus is the answer for one descriptor: Envoy's
// RateLimitResponse.DescriptorStatus.
type DescriptorStatus struct {
	// Code is CodeOverLimit when any counter reported on the descriptor is
	// over.
	Code Code
	// CurrentLimit is the limit that decided: the first one over, or else
	// the one with the least remaining. Nil when no limit applies. It is
	// shared: do not modify it.
	CurrentLimit *RateLimit
	// LimitRemaining is how many more hits CurrentLimit admits now
	// (saturating at the largest uint32).
	LimitRemaining uint32
	// DurationUntilReset is how long until CurrentLimit's counter is back to
	// its initial state: the end of the window for the fixed window.
	DurationUntilReset time.Duration
}

// ErrEmptyDomain is returned for a request without a domain.
var ErrEmptyDomain = errors.New("limit: request has an empty domain")

// Evaluator answers rate-limit requests with limitador's semantics over a
// set of limits and a counter.Store, in the shape of Envoy's rate limit
// service:
//
//   - each limit whose namespace is the request's domain is evaluated once
//     per request: it applies when all its conditions hold and every
//     variable resolves, legacy keys reading the entries of all descriptors
//     merged (a later entry winning) and CEL reading descriptors (all of
//     them) and limit, and counts on the counter (limit identity, the
//     variables' values).
//   - an applying limit is reported on the descriptors whose entries it
//     read, or on the first descriptor (without an override) when it read
//     none; each descriptor's status is the first of its limits that is
//     over, or else the one with the least remaining.
//   - a limit's cost is the own HitsAddend of the first descriptor it is
//     reported on that has one (an explicit 0 checks without consuming),
//     else the request's (0 means 1).
//   - a descriptor with a Limit override of a known unit is limited by it
//     alone, with the epoch-aligned fixed window, on a counter keyed by the
//     domain, the descriptor's entries and the override's window;
//     configured limits do not read its entries.
//   - a request is all-or-nothing: when any counter would go over, none is
//     incremented. All its counters go to the store in one Update.
//   - a domain without limits answers OK for every descriptor; an empty
//     domain is ErrEmptyDomain; a store error is returned as a *StoreError,
//     so a server can answer Unavailable.
//
// An Evaluator is immutable and safe for concurrent use. To change limits,
// build a new one on the same store: counters are keyed by limit identity,
// so they carry over.
type Evaluator struct {
	domains map[string]*domainLimits
	store   counter.Store
	clock   func() time.Time
	scratch sync.Pool
}

type domainLimits struct {
	limits []*compiledLimit
}

// scratch is the reusable per-request state, so that a request allocates
// nothing in the steady state.
type scratch struct {
	keys    []byte // every counter key of the request, back to back
	updates []counter.Update
	decs    []counter.Decision
	attr    []int32 // the descriptors each update is attributed to, back to back
	attrEnd []int   // per update: the end of its descriptors in attr
	pick    []int   // per descriptor: the update its status reports
	limits  []*RateLimit
	act     activation
}

// Option configures an Evaluator.
type Option func(*Evaluator)

// WithClock sets the clock ShouldRateLimit reads; the default is time.Now.
func WithClock(clock func() time.Time) Option {
	return func(e *Evaluator) { e.clock = clock }
}

// NewEvaluator validates limits (see ValidateLimits) and returns an
// evaluator over them and store.
func NewEvaluator(limits []Limit, store counter.Store, opts ...Option) (*Evaluator, error) {
	if store == nil {
		return nil, errors.New("limit: NewEvaluator needs a store")
	}
	compiled, errs := compileLimits(limits, nil)
	if len(errs) > 0 {
		return nil, errs
	}
	e := &Evaluator{domains: make(map[string]*domainLimits), store: store, clock: time.Now}
	for i, cl := range compiled {
		ns := limits[cl.index].Namespace
		dl := e.domains[ns]
		if dl == nil {
			dl = &domainLimits{}
			e.domains[ns] = dl
		}
		dl.limits = append(dl.limits, compiled[i])
	}
	e.scratch.New = func() any { return new(scratch) }
	for _, o := range opts {
		o(e)
	}
	return e, nil
}

// ShouldRateLimit evaluates req at the evaluator's clock and returns a new
// response.
func (e *Evaluator) ShouldRateLimit(ctx context.Context, req *Request) (*Response, error) {
	resp := new(Response)
	if err := e.Evaluate(ctx, e.clock(), req, resp); err != nil {
		return nil, err
	}
	return resp, nil
}

// Evaluate evaluates req at now into resp, reusing the storage of
// resp.Statuses and resp.Counters. On a *StoreError resp.Counters lists the
// counters the request was to update, with zero decisions; on any other
// error resp is left unspecified.
func (e *Evaluator) Evaluate(ctx context.Context, now time.Time, req *Request, resp *Response) error {
	if req.Domain == "" {
		return ErrEmptyDomain
	}
	n := len(req.Descriptors)
	if cap(resp.Statuses) < n {
		resp.Statuses = make([]DescriptorStatus, n)
	}
	resp.Statuses = resp.Statuses[:n]
	clear(resp.Statuses)
	clear(resp.Counters)
	resp.Counters = resp.Counters[:0]
	resp.Code = CodeOK
	for i := range resp.Statuses {
		resp.Statuses[i].Code = CodeOK
	}
	dl := e.domains[req.Domain]
	if n == 0 {
		return nil
	}

	sc := e.scratch.Get().(*scratch)
	defer e.release(sc)
	if dl != nil {
		sc.act.reset(req.Descriptors)
		for _, l := range dl.limits {
			start := len(sc.keys)
			var ok bool
			if sc.keys, ok = l.applies(&sc.act, sc.keys); !ok {
				continue
			}
			first := len(sc.attr)
			for i, read := range sc.act.reads {
				if read {
					sc.attr = append(sc.attr, int32(i))
				}
			}
			if len(sc.attr) == first {
				sc.attr = append(sc.attr, int32(firstVisible(req.Descriptors)))
			}
			cost := limitCost(req, sc.attr[first:])
			sc.add(start, l.policy, cost, &l.status)
			resp.Counters = append(resp.Counters, Counted{Descriptor: int(sc.attr[first]), Limit: &l.status, Cost: cost})
		}
	}
	for i := range req.Descriptors {
		d := &req.Descriptors[i]
		if !hasOverride(d) {
			continue
		}
		cost := descriptorCost(req, d)
		start := len(sc.keys)
		sc.keys = appendOverrideKey(sc.keys, req.Domain, d)
		window := time.Duration(d.Limit.Unit.Seconds()) * time.Second
		sc.attr = append(sc.attr, int32(i))
		sc.add(start, counter.Policy{Max: uint64(d.Limit.RequestsPerUnit), Window: window}, cost,
			&RateLimit{RequestsPerUnit: d.Limit.RequestsPerUnit, Unit: d.Limit.Unit})
		resp.Counters = append(resp.Counters, Counted{Descriptor: i, Limit: sc.limits[len(sc.limits)-1], Override: true, Cost: cost})
	}
	if len(sc.updates) == 0 {
		return nil
	}
	if err := e.store.Update(ctx, now, sc.updates, sc.decs); err != nil {
		return &StoreError{Err: err}
	}
	for j := range resp.Counters {
		resp.Counters[j].Decision = sc.decs[j]
	}
	e.statuses(sc, resp)
	return nil
}

// add records an update whose key is sc.keys[start:], attributed to the
// descriptors appended to sc.attr since the previous update.
func (sc *scratch) add(start int, p counter.Policy, cost uint64, rl *RateLimit) {
	key := sc.keys[start:]
	sc.updates = append(sc.updates, counter.Update{Key: unsafe.String(unsafe.SliceData(key), len(key)), Policy: p, Cost: cost})
	sc.decs = append(sc.decs, counter.Decision{})
	sc.attrEnd = append(sc.attrEnd, len(sc.attr))
	sc.limits = append(sc.limits, rl)
}

// release returns sc to the pool, dropping references into the request.
func (e *Evaluator) release(sc *scratch) {
	clear(sc.updates)
	clear(sc.limits)
	sc.keys, sc.updates, sc.decs, sc.limits = sc.keys[:0], sc.updates[:0], sc.decs[:0], sc.limits[:0]
	sc.attr, sc.attrEnd, sc.pick = sc.attr[:0], sc.attrEnd[:0], sc.pick[:0]
	sc.act.reset(nil)
	e.scratch.Put(sc)
}

// statuses turns the store's decisions into per-descriptor statuses: each
// descriptor reports, among the counters attributed to it, the first one
// over, or else the one with the least remaining.
func (e *Evaluator) statuses(sc *scratch, resp *Response) {
	for range resp.Statuses {
		sc.pick = append(sc.pick, -1)
	}
	from := 0
	for j, to := range sc.attrEnd {
		dj := &sc.decs[j]
		for _, i := range sc.attr[from:to] {
			p := sc.pick[i]
			if p < 0 || sc.decs[p].Allowed && (!dj.Allowed || dj.Remaining < sc.decs[p].Remaining) {
				sc.pick[i] = j
			}
		}
		from = to
	}
	for i, p := range sc.pick {
		if p < 0 {
			continue
		}
		d := sc.decs[p]
		st := &resp.Statuses[i]
		st.CurrentLimit = sc.limits[p]
		st.LimitRemaining = uint32(min(d.Remaining, math.MaxUint32))
		st.DurationUntilReset = d.ResetAfter
		if !d.Allowed {
			st.Code = CodeOverLimit
			resp.Code = CodeOverLimit
		}
	}
}

// firstVisible returns the index of the first descriptor without a limit
// override, or 0 when all have one.
func firstVisible(ds []Descriptor) int {
	for i := range ds {
		if !hasOverride(&ds[i]) {
			return i
		}
	}
	return 0
}

// limitCost returns the hits of a configured limit attributed to the
// descriptors attr: the own hits_addend of the first of them that has one,
// else the request's (0 means 1).
func limitCost(req *Request, attr []int32) uint64 {
	for _, i := range attr {
		if h := req.Descriptors[i].HitsAddend; h != nil {
			return *h
		}
	}
	return requestCost(req)
}

// requestCost returns the request's hits_addend, 0 meaning 1.
func requestCost(req *Request) uint64 {
	if req.HitsAddend == 0 {
		return 1
	}
	return uint64(req.HitsAddend)
}

// descriptorCost returns the hits of a descriptor's override: its own
// hits_addend, else the request's.
func descriptorCost(req *Request, d *Descriptor) uint64 {
	if d.HitsAddend != nil {
		return *d.HitsAddend
	}
	return requestCost(req)
}

// appendOverrideKey appends the counter key of a descriptor's override:
// the domain's hash tag, "O", the window and the entries, length-prefixed.
func appendOverrideKey(b []byte, domain string, d *Descriptor) []byte {
	b = appendHashTag(b, domain)
	b = append(b, 'O')
	b = strconv.AppendUint(b, uint64(d.Limit.Unit.Seconds()), 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(len(d.Entries)), 10)
	b = append(b, ':')
	for _, en := range d.Entries {
		b = appendNetstring(b, en.Key)
		b = appendNetstring(b, en.Value)
	}
	return b
}
