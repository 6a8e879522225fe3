package rlsmsg

// Request is a RateLimitRequest: what a proxy asks for one HTTP request.
type Request struct {
	// Domain selects the limits; a server refuses an empty one.
	Domain string `json:"domain"`
	// Descriptors are the request's descriptors; the response has one
	// status per descriptor, in this order.
	Descriptors []Descriptor `json:"descriptors"`
	// HitsAddend is the request's cost, for descriptors without their own;
	// 0 means 1.
	HitsAddend uint32 `json:"hits_addend"`
}

// Descriptor is a RateLimitDescriptor.
type Descriptor struct {
	// Entries are the descriptor's key/value pairs, in order.
	Entries []Entry `json:"entries"`
	// Limit is the descriptor's limit override; nil when none.
	Limit *Override `json:"limit,omitempty"`
	// HitsAddend is the descriptor's own cost, replacing the request's;
	// nil when unset, which is not the same as a set 0 (a check that
	// consumes nothing).
	HitsAddend *uint64 `json:"hits_addend,omitempty"`
	// IsNegativeHits asks for HitsAddend to be given back rather than
	// consumed.
	IsNegativeHits bool `json:"is_negative_hits,omitempty"`
}

// Entry is one descriptor entry, a RateLimitDescriptor.Entry.
type Entry struct {
	// Key is the entry's key, such as "remote_address".
	Key string `json:"key"`
	// Value is the entry's value.
	Value string `json:"value"`
}

// Override is a limit carried by a descriptor, a
// RateLimitDescriptor.RateLimitOverride: the service uses it instead of
// its configured limit.
type Override struct {
	// RequestsPerUnit is the number of hits allowed per Unit.
	RequestsPerUnit uint32 `json:"requests_per_unit"`
	// Unit is the window.
	Unit Unit `json:"unit"`
	// UnitMultiplier makes the window several units long; nil when unset.
	UnitMultiplier *uint32 `json:"unit_multiplier,omitempty"`
}

// Clone returns a deep copy of r that shares only its strings (which are
// immutable), in at most five allocations whatever the number of
// descriptors: a Request that must outlive the memory r points into, such
// as a descriptor.Result that the next generation reuses.
func (r *Request) Clone() Request {
	out := Request{Domain: r.Domain, HitsAddend: r.HitsAddend}
	if len(r.Descriptors) == 0 {
		return out
	}
	var nEntries, nLimits, nHits, nMults int
	for i := range r.Descriptors {
		d := &r.Descriptors[i]
		nEntries += len(d.Entries)
		if d.Limit != nil {
			nLimits++
			if d.Limit.UnitMultiplier != nil {
				nMults++
			}
		}
		if d.HitsAddend != nil {
			nHits++
		}
	}
	out.Descriptors = make([]Descriptor, len(r.Descriptors))
	entries := make([]Entry, 0, nEntries)
	limits := make([]Override, 0, nLimits)
	hits := make([]uint64, 0, nHits)
	mults := make([]uint32, 0, nMults)
	for i := range r.Descriptors {
		from, to := &r.Descriptors[i], &out.Descriptors[i]
		to.IsNegativeHits = from.IsNegativeHits
		if len(from.Entries) > 0 {
			start := len(entries)
			entries = append(entries, from.Entries...)
			to.Entries = entries[start:len(entries):len(entries)]
		}
		if from.Limit != nil {
			limits = append(limits, *from.Limit)
			to.Limit = &limits[len(limits)-1]
			if from.Limit.UnitMultiplier != nil {
				mults = append(mults, *from.Limit.UnitMultiplier)
				to.Limit.UnitMultiplier = &mults[len(mults)-1]
			}
		}
		if from.HitsAddend != nil {
			hits = append(hits, *from.HitsAddend)
			to.HitsAddend = &hits[len(hits)-1]
		}
	}
	return out
}
