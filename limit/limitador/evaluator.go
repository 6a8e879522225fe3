package limitador

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"time"
	"unsafe"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

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
//   - a domain without limits answers OK for every descriptor; a request
//     it cannot evaluate (an empty domain, a refund, an override with an
//     unknown unit or a unit_multiplier other than 1) is a *limit.InvalidRequestError naming
//     every problem; a store error is returned as a *limit.StoreError, so
//     a server can answer Unavailable.
//
// A namespace of 4 limits or more is indexed by the entries (or entry keys)
// its limits need, so that a request tries only the limits it can match, in
// configuration order; the answers are those of trying every limit.
//
// An Evaluator is immutable and safe for concurrent use. To change limits,
// build a new one on the same store: counters are keyed by limit identity,
// so they carry over.
type Evaluator struct {
	domains map[string]*domainLimits
	store   counter.Store
	clock   func() time.Time
	tagBy   limit.TagBy
	scratch sync.Pool
}

type domainLimits struct {
	limits []*compiledLimit
	index  *limitIndex // nil: every limit is tried
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
	limits  []*rlsmsg.RateLimit
	act     activation
	cand    []int32              // the limits the index says may apply
	adj     []counter.Adjustment // Charge's, one per update
}

// Option configures an Evaluator.
type Option func(*Evaluator)

// WithClock sets the clock ShouldRateLimit reads; the default is time.Now.
func WithClock(clock func() time.Time) Option {
	return func(e *Evaluator) { e.clock = clock }
}

// WithTagBy chooses the counter keys' Redis Cluster hash tag: the
// namespace (limit.TagByDomain, the default) or, with limit.TagByFirstEntry,
// the namespace and the limit's first variable as written with its value
// (a limit without variables keeps the namespace's tag), and for a limit
// override the namespace and the descriptor's first entry. A request's
// counters may then fall under several tags: a Redis Cluster store must be
// allowed to decide them one tag at a time (limit/redis's
// Options.SplitHashTags). Reordering a limit's variables keeps its identity
// but, under TagByFirstEntry, moves its counters to new keys.
func WithTagBy(t limit.TagBy) Option {
	return func(e *Evaluator) { e.tagBy = t }
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
	e.buildIndexes(indexMin)
	e.scratch.New = func() any { return new(scratch) }
	for _, o := range opts {
		o(e)
	}
	if e.tagBy != limit.TagByDomain && e.tagBy != limit.TagByFirstEntry {
		return nil, fmt.Errorf("limit: unknown hash tag choice %v", e.tagBy)
	}
	return e, nil
}

// Configured reports whether any limit has domain as its namespace.
func (e *Evaluator) Configured(domain string) bool { return e.domains[domain] != nil }

// ShouldRateLimit evaluates req at the evaluator's clock and returns a new
// response.
func (e *Evaluator) ShouldRateLimit(ctx context.Context, req *rlsmsg.Request) (*limit.Result, error) {
	resp := new(limit.Result)
	if err := e.Evaluate(ctx, e.clock(), req, resp); err != nil {
		return nil, err
	}
	return resp, nil
}

// Evaluate evaluates req at now into resp, reusing the storage of
// resp.Statuses and resp.Counters. On a *StoreError resp.Counters lists the
// counters the request was to update, with zero decisions; on any other
// error resp is left unspecified.
func (e *Evaluator) Evaluate(ctx context.Context, now time.Time, req *rlsmsg.Request, resp *limit.Result) error {
	return e.evaluate(ctx, now, req, resp, operation{})
}

// evaluate is Evaluate, Probe and Charge: it finds the request's counters,
// then applies op to them.
func (e *Evaluator) evaluate(ctx context.Context, now time.Time, req *rlsmsg.Request, resp *limit.Result, op operation) error {
	if op.kind == opCharge {
		if _, ok := e.store.(counter.Adjuster); !ok {
			return errNoAdjuster
		}
	}
	if err := check(req); err != nil {
		return err
	}
	n := len(req.Descriptors)
	resp.Reset(n)
	dl := e.domains[req.Domain]
	resp.Configured = dl != nil
	if n == 0 {
		return nil
	}

	sc := e.scratch.Get().(*scratch)
	defer e.release(sc)
	if dl != nil {
		sc.act.reset(req.Descriptors)
		if dl.index == nil {
			for _, l := range dl.limits {
				e.try(sc, req, resp, l)
			}
		} else {
			sc.cand = dl.index.candidates(req.Descriptors, sc.cand[:0])
			for _, i := range sc.cand {
				e.try(sc, req, resp, dl.limits[i])
			}
		}
	}
	for i := range req.Descriptors {
		d := &req.Descriptors[i]
		if !hasOverride(d) {
			continue
		}
		cost := limit.Cost(req, d)
		start := len(sc.keys)
		sc.keys = appendOverrideKey(sc.keys, e.tagBy, req.Domain, d)
		window := time.Duration(d.Limit.Unit.Seconds()) * time.Second
		sc.attr = append(sc.attr, int32(i))
		sc.add(start, counter.Policy{Max: uint64(d.Limit.RequestsPerUnit), Window: window}, cost,
			&rlsmsg.RateLimit{RequestsPerUnit: d.Limit.RequestsPerUnit, Unit: d.Limit.Unit})
		resp.Counters = append(resp.Counters, limit.Counted{Descriptor: i, Limit: sc.limits[len(sc.limits)-1], Override: true, Cost: cost})
	}
	if len(sc.updates) == 0 {
		return nil
	}
	if op.kind == opCharge {
		return e.charge(ctx, now, sc, resp, op)
	}
	if op.kind == opProbe {
		for j := range sc.updates {
			sc.updates[j].Cost = 0
			resp.Counters[j].Cost = 0
		}
	}
	if err := e.store.Update(ctx, now, sc.updates, sc.decs); err != nil {
		return &limit.StoreError{Err: err}
	}
	if op.kind == opProbe {
		probed(sc.decs, op.hits)
	}
	for j := range resp.Counters {
		resp.Counters[j].Decision = sc.decs[j]
	}
	e.statuses(sc, resp)
	return nil
}

// try counts the request on l when l applies to it.
func (e *Evaluator) try(sc *scratch, req *rlsmsg.Request, resp *limit.Result, l *compiledLimit) {
	start := len(sc.keys)
	var ok bool
	if sc.keys, ok = l.applies(&sc.act, sc.keys, e.tagBy); !ok {
		return
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
	resp.Counters = append(resp.Counters, limit.Counted{Descriptor: int(sc.attr[first]), Limit: &l.status, Name: l.status.Name, Cost: cost})
}

// buildIndexes indexes the limits of every namespace holding at least min
// of them (see limitIndex).
func (e *Evaluator) buildIndexes(min int) {
	for _, dl := range e.domains {
		if len(dl.limits) >= min {
			dl.index = newLimitIndex(dl.limits)
		}
	}
}

// add records an update whose key is sc.keys[start:], attributed to the
// descriptors appended to sc.attr since the previous update.
func (sc *scratch) add(start int, p counter.Policy, cost uint64, rl *rlsmsg.RateLimit) {
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
	clear(sc.adj)
	sc.adj = sc.adj[:0]
	sc.keys, sc.updates, sc.decs, sc.limits = sc.keys[:0], sc.updates[:0], sc.decs[:0], sc.limits[:0]
	sc.attr, sc.attrEnd, sc.pick, sc.cand = sc.attr[:0], sc.attrEnd[:0], sc.pick[:0], sc.cand[:0]
	sc.act.reset(nil)
	e.scratch.Put(sc)
}

// statuses turns the store's decisions into per-descriptor statuses: each
// descriptor reports, among the counters attributed to it, the first one
// over, or else the one with the least remaining.
func (e *Evaluator) statuses(sc *scratch, resp *limit.Result) {
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
		st.DurationUntilReset, st.HasDurationUntilReset = d.ResetAfter, true
		if !d.Allowed {
			st.Code = rlsmsg.CodeOverLimit
			resp.OverallCode = rlsmsg.CodeOverLimit
		}
	}
}

// firstVisible returns the index of the first descriptor without a limit
// override, or 0 when all have one.
func firstVisible(ds []rlsmsg.Descriptor) int {
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
func limitCost(req *rlsmsg.Request, attr []int32) uint64 {
	for _, i := range attr {
		if h := req.Descriptors[i].HitsAddend; h != nil {
			return *h
		}
	}
	return limit.RequestCost(req)
}

// appendOverrideKey appends the counter key of a descriptor's override:
// the hash tag (the domain's, or the domain's and the first entry's), "O",
// the window, ":", the number of entries, ":" and the entries,
// length-prefixed.
func appendOverrideKey(b []byte, tagBy limit.TagBy, domain string, d *rlsmsg.Descriptor) []byte {
	if tagBy == limit.TagByFirstEntry && len(d.Entries) > 0 {
		b = limit.AppendEntryTag(b, domain, d.Entries[0].Key, d.Entries[0].Value)
	} else {
		b = limit.AppendTag(b, domain)
	}
	b = append(b, 'O')
	b = strconv.AppendUint(b, uint64(d.Limit.Unit.Seconds()), 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(len(d.Entries)), 10)
	b = append(b, ':')
	for _, en := range d.Entries {
		b = limit.AppendString(b, en.Key)
		b = limit.AppendString(b, en.Value)
	}
	return b
}

// check returns a *limit.InvalidRequestError naming every reason req cannot
// be evaluated, or nil.
func check(req *rlsmsg.Request) error {
	return limit.CheckRequest(req, func(problems []string, i int, d *rlsmsg.Descriptor) []string {
		problems = limit.CheckDescriptor(problems, i, d)
		if m := d.Limit; m != nil && m.UnitMultiplier != nil && *m.UnitMultiplier != 1 {
			problems = append(problems, fmt.Sprintf("descriptors[%d].limit.unit_multiplier: %d is not supported, only 1", i, *m.UnitMultiplier))
		}
		return problems
	})
}
