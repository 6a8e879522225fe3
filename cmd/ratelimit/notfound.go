package main

import (
	"sort"
	"sync"
)

// notFound counts, per domain, the descriptors of calls to a domain
// without configuration, as the reference's
// ratelimit.service.rate_limit.<domain>.domain_not_found. Clients choose
// the domain, so at most max domains have a counter of their own; the
// others count in the _other pseudo-domain. It is safe for concurrent use.
type notFound struct {
	mu    sync.Mutex
	max   int
	n     map[string]uint64
	other uint64
}

func newNotFound(max int) *notFound { return &notFound{max: max, n: map[string]uint64{}} }

// add counts n descriptors of domain.
func (f *notFound) add(domain string, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.n[domain]; ok || len(f.n) < f.max {
		f.n[domain] += uint64(n)
		return
	}
	f.other += uint64(n)
}

// byDomain returns the counts by domain, _other included when not 0.
func (f *notFound) byDomain() map[string]uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[string]uint64, len(f.n)+1)
	for d, v := range f.n {
		out[d] = v
	}
	if f.other > 0 {
		out[otherKey] += f.other
	}
	return out
}

// samples returns the counters under their statsd names, sorted.
func (f *notFound) samples() []sample {
	var out []sample
	for d, v := range f.byDomain() {
		out = append(out, sample{ruleStatPrefix + statName(d) + ".domain_not_found", v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}
