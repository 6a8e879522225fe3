package limit

import "github.com/rlpkit/rlpkit/descriptor"

// RequestFromResult returns the rate-limit request for what a
// descriptor.Engine generated for an HTTP request: res's domain, its
// descriptors in order, each with its entries, its limit override and its
// own hits_addend, and the request's hits_addend. Units need no conversion:
// both packages use descriptor.Unit.
//
// The Request owns its memory (the strings are shared, being immutable), so
// res may be reused by the next GenerateInto at once. It allocates at most
// four times, whatever the number of descriptors.
//
// Call it when res.ShouldCall() reports a descriptor: otherwise there is
// nothing to ask, and when no policy matched the domain is empty, which
// Evaluate refuses with ErrEmptyDomain. A nil res gives an empty Request.
func RequestFromResult(res *descriptor.Result) Request {
	if res == nil {
		return Request{}
	}
	req := Request{Domain: res.Domain, HitsAddend: res.HitsAddend}
	if len(res.Descriptors) == 0 {
		return req
	}
	var nEntries, nLimits, nHits int
	for i := range res.Descriptors {
		d := &res.Descriptors[i]
		nEntries += len(d.Entries)
		if d.Limit != nil {
			nLimits++
		}
		if d.HitsAddend != nil {
			nHits++
		}
	}
	req.Descriptors = make([]Descriptor, len(res.Descriptors))
	entries := make([]Entry, 0, nEntries)
	var limits []Override
	if nLimits > 0 {
		limits = make([]Override, 0, nLimits)
	}
	var hits []uint64
	if nHits > 0 {
		hits = make([]uint64, 0, nHits)
	}
	for i := range res.Descriptors {
		from, to := &res.Descriptors[i], &req.Descriptors[i]
		start := len(entries)
		for _, e := range from.Entries {
			entries = append(entries, Entry{Key: e.Key, Value: e.Value})
		}
		if len(entries) > start {
			to.Entries = entries[start:len(entries):len(entries)]
		}
		if from.Limit != nil {
			limits = append(limits, Override{RequestsPerUnit: from.Limit.RequestsPerUnit, Unit: from.Limit.Unit})
			to.Limit = &limits[len(limits)-1]
		}
		if from.HitsAddend != nil {
			hits = append(hits, *from.HitsAddend)
			to.HitsAddend = &hits[len(hits)-1]
		}
	}
	return req
}
