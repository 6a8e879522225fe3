package rls

import (
	"errors"
	"fmt"
	"strings"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"

	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// scratch is the per-call state reused across calls: the request as the
// evaluator reads it and the evaluator's response, whose storage the next
// call reuses.
type scratch struct {
	req       limitador.Request
	resp      limitador.Response
	entries   []limitador.Entry
	hits      []uint64
	overrides []limitador.Override
}

// convert validates req and fills sc.req from it. The entries alias req's
// strings, so sc must be reset before req can be collected.
func (sc *scratch) convert(req *rlsv3.RateLimitRequest) error {
	if err := validate(req); err != nil {
		return err
	}
	descs := req.GetDescriptors()
	total := 0
	for _, d := range descs {
		total += len(d.GetEntries())
	}
	// Size every backing array up front: the descriptors point into them.
	sc.entries = grow(sc.entries, total)
	sc.hits = grow(sc.hits, len(descs))
	sc.overrides = grow(sc.overrides, len(descs))
	sc.req.Descriptors = grow(sc.req.Descriptors, len(descs))
	sc.req.Domain = req.GetDomain()
	sc.req.HitsAddend = req.GetHitsAddend()
	next := 0
	for i, d := range descs {
		start := next
		for _, e := range d.GetEntries() {
			sc.entries[next] = limitador.Entry{Key: e.GetKey(), Value: e.GetValue()}
			next++
		}
		ld := limitador.Descriptor{Entries: sc.entries[start:next:next]}
		if h := d.GetHitsAddend(); h != nil {
			sc.hits[i] = h.GetValue()
			ld.HitsAddend = &sc.hits[i]
		}
		if o := d.GetLimit(); o != nil {
			sc.overrides[i] = limitador.Override{RequestsPerUnit: o.GetRequestsPerUnit(), Unit: rlsmsg.Unit(o.GetUnit())}
			ld.Limit = &sc.overrides[i]
		}
		sc.req.Descriptors[i] = ld
	}
	return nil
}

// reset drops every reference into the last request.
func (sc *scratch) reset() {
	clear(sc.entries)
	clear(sc.req.Descriptors)
	clear(sc.resp.Statuses)
	clear(sc.resp.Counters)
	sc.req = limitador.Request{Descriptors: sc.req.Descriptors[:0]}
	sc.entries = sc.entries[:0]
}

// grow returns s with length n, reusing its storage when large enough.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// validate reports every reason req cannot be evaluated, with field paths,
// or nil.
func validate(req *rlsv3.RateLimitRequest) error {
	var problems []string
	if req.GetDomain() == "" {
		problems = append(problems, "domain: empty")
	}
	for i, d := range req.GetDescriptors() {
		if len(d.GetEntries()) == 0 {
			problems = append(problems, fmt.Sprintf("descriptors[%d].entries: empty", i))
		}
		for j, e := range d.GetEntries() {
			if e.GetKey() == "" {
				problems = append(problems, fmt.Sprintf("descriptors[%d].entries[%d].key: empty", i, j))
			}
		}
		if d.GetIsNegativeHits() {
			problems = append(problems, fmt.Sprintf("descriptors[%d].is_negative_hits: refunds are not supported", i))
		}
		if m := d.GetLimit().GetUnitMultiplier(); m != nil && m.GetValue() != 1 {
			problems = append(problems, fmt.Sprintf("descriptors[%d].limit.unit_multiplier: %d is not supported, only 1", i, m.GetValue()))
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return errors.New("rls: invalid request: " + strings.Join(problems, "; "))
}
