package policytest

import (
	"context"
	"fmt"
	"time"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/policyapi"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// MaxBuckets is the most buckets a LimitStats timeline holds: when a replay spans more
// seconds, buckets double in width, so memory stays constant whatever the length of the log.
const MaxBuckets = 2048

// Simulator replays requests against a target on a clock driven by their timestamps, with
// counters in memory, and counts per limit what happened. It is not safe for concurrent use.
type Simulator struct {
	target *Target
	ev     limit.Evaluator
	// probes[domain] are evaluators of one limit each over a store that counts nothing: the
	// evaluator says whether that limit applies to a request, by asking the store.
	probes   map[string][]probe
	stats    []LimitStats
	requests int64

	tl timeline

	in        Input
	call      rlsmsg.Request
	resp      limit.Result
	probeResp limit.Result
	seen      []bool

	calls     CallsFrontend       // when the target's Frontend makes several calls
	local     policyapi.Local     // when it is a LocalFrontend: the proxy's local buckets
	callDescs []rlsmsg.Descriptor // the last request's descriptors there
	applied   []int8              // per limit, for the last request: 0 not applied, 1 applied, 2 limited
	now       time.Time           // the last request's time
	statuses  []rlsmsg.Status     // reused for the decisions' statuses
	authNeeds []authNeed          // the limits reading auth.* attributes
}

// probe finds out whether one limit applies to a request.
type probe struct {
	index int
	ev    *limitador.Evaluator
	store *probeStore
}

// probeStore admits everything and remembers whether it was asked.
type probeStore struct{ asked bool }

func (s *probeStore) Update(_ context.Context, _ time.Time, updates []counter.Update, decisions []counter.Decision) error {
	s.asked = s.asked || len(updates) > 0
	for i := range updates {
		decisions[i] = counter.Decision{Allowed: true}
	}
	return nil
}

// LimitStats is what happened to one limit during a replay.
type LimitStats struct {
	// Limit is the limit.
	Limit limitador.Limit
	// Requests counts the requests it applied to.
	Requests int64
	// Admitted counts those admitted (by every limit).
	Admitted int64
	// Limited counts the requests it rejected: a descriptor was over the limit on it.
	Limited int64
	// LimitedElsewhere counts the requests it applied to that another limit rejected (it
	// was not over): Requests is Admitted + Limited + LimitedElsewhere.
	LimitedElsewhere int64
	// FirstLimited is the time of the first request it rejected; zero when none.
	FirstLimited time.Time
	// PeakPerSecond is the most requests it applied to within one second of the log.
	PeakPerSecond int64
	// MissingAuth counts the requests that lacked an auth.* attribute the limit's
	// predicates or counters read (when the target says which it reads), whichever route
	// they took; MissingAuthAttribute is the first such attribute ("auth.identity.userid").
	// A limit that never applied while MissingAuth is above 0 may have waited for it.
	MissingAuth          int64
	MissingAuthAttribute string
	// Tokens is the usage charged on it once responses were done (a TokenRateLimitPolicy's
	// reports, an Envoy Gateway rule's cost.response): the hits of its stream-done
	// descriptors.
	Tokens uint64
	// Timeline counts admitted and limited requests, and the tokens charged, per bucket of
	// Report.BucketWidth from Report.Origin; in a Report, every limit's timeline spans
	// every request.
	Timeline []Bucket

	second, inSecond int64
}

// Bucket is one interval of a timeline.
type Bucket struct {
	// Admitted, Limited and LimitedElsewhere count the requests the limit applied to in the
	// interval, as LimitStats does.
	Admitted, Limited, LimitedElsewhere int64
	// Tokens is the usage charged on the limit in the interval.
	Tokens uint64
}

// Report is the outcome of a replay.
type Report struct {
	// Requests counts the requests replayed.
	Requests int64
	// Origin is the first request's second; BucketWidth the width of timeline buckets.
	Origin      time.Time
	BucketWidth time.Duration
	// Limits are the target's limits, in order.
	Limits []LimitStats
}

// NewSimulator returns a simulator over target with fresh counters in a memory store.
func NewSimulator(target *Target) (*Simulator, error) {
	ev, err := target.newEvaluator(counter.NewMemoryStore(counter.MemoryOptions{}))
	if err != nil {
		return nil, err
	}
	s := &Simulator{target: target, ev: ev, probes: map[string][]probe{}}
	if cf, ok := target.Frontend.(CallsFrontend); ok {
		s.calls, s.applied = cf, make([]int8, len(target.Limits))
		if lf, ok := cf.(policyapi.LocalFrontend); ok {
			s.local = lf.NewLocal()
		}
	}
	s.authNeeds = authNeeds(target)
	s.stats = make([]LimitStats, len(target.Limits))
	s.seen = make([]bool, len(target.Limits))
	for i, l := range target.Limits {
		s.stats[i].Limit = l
		s.stats[i].second = -1
		if target.rl != nil {
			continue // its answers list the counters that applied
		}
		st := &probeStore{}
		pev, err := limitador.NewEvaluator([]limitador.Limit{l}, st)
		if err != nil {
			return nil, err
		}
		s.probes[l.Namespace] = append(s.probes[l.Namespace], probe{index: i, ev: pev, store: st})
	}
	return s, nil
}

// Replay runs one request at its time and returns what decided it.
func (s *Simulator) Replay(e *LogEntry) (Decision, error) {
	s.requests++
	if s.tl.width == 0 {
		s.tl.origin, s.tl.width = e.Time.Unix(), 1
	}
	s.tl.buckets = max(s.tl.buckets, s.bucket(e.Time)+1)
	e.request(&s.in)
	if s.authNeeds != nil {
		s.countMissingAuth()
	}
	if s.calls != nil {
		return s.replayCalls(e)
	}
	if !s.target.Frontend.Generate(&s.in, &s.call, nil) {
		return s.target.decide(&s.resp, false, ""), nil
	}
	lreq := &s.call
	if err := s.ev.Evaluate(context.Background(), e.Time, lreq, &s.resp); err != nil {
		return Decision{}, err
	}
	s.target.nameStatuses(nil, &s.resp)
	d := s.target.decide(&s.resp, true, lreq.Domain)
	if s.target.rl != nil {
		s.countCounters(e, lreq.Domain, d.Code == rlsmsg.CodeOK)
		return d, nil
	}
	clear(s.seen)
	for _, st := range s.resp.Statuses {
		if st.Code == rlsmsg.CodeOverLimit && st.CurrentLimit != nil {
			if i, ok := s.target.limitIndex(lreq.Domain, st.CurrentLimit.Name); ok {
				s.seen[i] = true
			}
		}
	}
	sec := e.Time.Unix()
	for _, p := range s.probes[lreq.Domain] {
		p.store.asked = false
		if err := p.ev.Evaluate(context.Background(), e.Time, lreq, &s.probeResp); err != nil {
			return Decision{}, err
		}
		limited := s.seen[p.index]
		if !p.store.asked && !limited {
			continue
		}
		s.count(p.index, sec, e, d.Code == rlsmsg.CodeOK, limited)
	}
	return d, nil
}

// countCounters counts a request against every rule whose counter an envoyproxy/ratelimit
// answer lists; a rule limited it when its counter refused and its descriptor was over.
func (s *Simulator) countCounters(e *LogEntry, domain string, admitted bool) {
	clear(s.seen)
	applied := s.seen // reused: applied[i] once counted
	sec := e.Time.Unix()
	for _, c := range s.resp.Counters {
		i, ok := s.target.limitIndex(domain, c.Name)
		if c.Name == "" || !ok || applied[i] {
			continue
		}
		applied[i] = true
		limited := !c.Decision.Allowed && s.resp.Statuses[c.Descriptor].Code == rlsmsg.CodeOverLimit
		s.count(i, sec, e, admitted, limited)
	}
}

// count counts a request a limit applied to, at second sec.
func (s *Simulator) count(i int, sec int64, e *LogEntry, admitted, limited bool) {
	ls := &s.stats[i]
	ls.Requests++
	if ls.second != sec {
		ls.second, ls.inSecond = sec, 0
	}
	ls.inSecond++
	ls.PeakPerSecond = max(ls.PeakPerSecond, ls.inSecond)
	switch {
	case admitted:
		ls.Admitted++
	case limited:
		ls.Limited++
		if ls.FirstLimited.IsZero() {
			ls.FirstLimited = e.Time
		}
	default:
		ls.LimitedElsewhere++
	}
	s.record(i, e.Time, admitted, limited)
}

// timeline state, shared by every limit.
type timeline struct {
	origin  int64 // Unix second of the first request
	width   int64 // seconds per bucket
	buckets int   // buckets up to the latest request
}

// record counts a request in a limit's timeline: admitted, limited by this limit, or else
// limited by another.
func (s *Simulator) record(i int, t time.Time, admitted, limited bool) {
	tl := &s.stats[i]
	b := s.timelineBucket(i, t)
	switch {
	case admitted:
		tl.Timeline[b].Admitted++
	case limited:
		tl.Timeline[b].Limited++
	default:
		tl.Timeline[b].LimitedElsewhere++
	}
}

// timelineBucket returns the bucket of t in limit i's timeline, which it extends to it.
func (s *Simulator) timelineBucket(i int, t time.Time) int {
	b := s.bucket(t)
	tl := &s.stats[i]
	for b >= len(tl.Timeline) {
		tl.Timeline = append(tl.Timeline, Bucket{})
	}
	return b
}

// bucket returns the timeline bucket of t, coarsening every timeline when t is beyond
// MaxBuckets; requests before the first one count in the first bucket.
func (s *Simulator) bucket(t time.Time) int {
	off := max(t.Unix()-s.tl.origin, 0)
	for off/s.tl.width >= MaxBuckets {
		s.tl.width *= 2
		s.tl.buckets = (s.tl.buckets + 1) / 2
		for i := range s.stats {
			tl := s.stats[i].Timeline
			for j := range tl {
				if j%2 == 0 {
					tl[j/2] = tl[j]
				} else {
					tl[j/2].Admitted += tl[j].Admitted
					tl[j/2].Limited += tl[j].Limited
					tl[j/2].LimitedElsewhere += tl[j].LimitedElsewhere
					tl[j/2].Tokens += tl[j].Tokens
				}
			}
			s.stats[i].Timeline = tl[:(len(tl)+1)/2]
		}
	}
	return int(off / s.tl.width)
}

// Explain says in words what decided a request Replay returned d for.
func (s *Simulator) Explain(d *Decision) string {
	if s.calls != nil {
		return s.target.explainDecision(d, s.callDescs)
	}
	return s.target.explainDecision(d, s.call.Descriptors)
}

// Describe names the deciding limit of d and what it left: `limit "admin" 5/10s remaining 0`.
func (s *Simulator) Describe(d *Decision) string { return s.target.describe(d) }

// Report returns the counts so far.
func (s *Simulator) Report() Report {
	r := Report{Requests: s.requests, Limits: make([]LimitStats, len(s.stats))}
	if s.tl.width > 0 {
		r.Origin, r.BucketWidth = time.Unix(s.tl.origin, 0).UTC(), time.Duration(s.tl.width)*time.Second
	}
	for i, ls := range s.stats {
		ls.Timeline = append(make([]Bucket, 0, s.tl.buckets), ls.Timeline...)
		ls.Timeline = ls.Timeline[:s.tl.buckets]
		r.Limits[i] = ls
	}
	return r
}

// String is a one-line summary, for progress lines.
func (s *Simulator) String() string {
	return fmt.Sprintf("%d requests", s.requests)
}
