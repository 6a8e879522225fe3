package rls

import (
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"

	"github.com/rlpkit/rlpkit/rlsmsg"
)

// requestBuf is the storage a decoded request points into, reused across
// calls.
type requestBuf struct {
	entries   []rlsmsg.Entry
	hits      []uint64
	overrides []rlsmsg.Override
	mults     []uint32
}

// fromProto fills r from a go-control-plane request, with b's storage. The
// entries alias req's strings.
func (b *requestBuf) fromProto(req *rlsv3.RateLimitRequest, r *rlsmsg.Request) {
	descs := req.GetDescriptors()
	total := 0
	for _, d := range descs {
		total += len(d.GetEntries())
	}
	// Size every backing array up front: the descriptors point into them.
	b.entries = grow(b.entries, total)
	b.hits = grow(b.hits, len(descs))
	b.overrides = grow(b.overrides, len(descs))
	b.mults = grow(b.mults, len(descs))
	r.Descriptors = grow(r.Descriptors, len(descs))
	r.Domain, r.HitsAddend = req.GetDomain(), req.GetHitsAddend()
	next := 0
	for i, d := range descs {
		start := next
		for _, e := range d.GetEntries() {
			b.entries[next] = rlsmsg.Entry{Key: e.GetKey(), Value: e.GetValue()}
			next++
		}
		ld := rlsmsg.Descriptor{Entries: b.entries[start:next:next], IsNegativeHits: d.GetIsNegativeHits()}
		if h := d.GetHitsAddend(); h != nil {
			b.hits[i] = h.GetValue()
			ld.HitsAddend = &b.hits[i]
		}
		if o := d.GetLimit(); o != nil {
			b.overrides[i] = rlsmsg.Override{RequestsPerUnit: o.GetRequestsPerUnit(), Unit: rlsmsg.Unit(o.GetUnit())}
			if m := o.GetUnitMultiplier(); m != nil {
				b.mults[i] = m.GetValue()
				b.overrides[i].UnitMultiplier = &b.mults[i]
			}
			ld.Limit = &b.overrides[i]
		}
		r.Descriptors[i] = ld
	}
}

// reset drops every reference into the last request.
func (b *requestBuf) reset(r *rlsmsg.Request) {
	clear(b.entries)
	clear(b.overrides)
	clear(r.Descriptors)
	*r = rlsmsg.Request{Descriptors: r.Descriptors[:0]}
	b.entries = b.entries[:0]
}

// grow returns s with length n, reusing its storage when large enough.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
