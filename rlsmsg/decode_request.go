package rlsmsg

// RequestDecoder decodes RateLimitRequests, reusing its memory from one
// request to the next: a server keeps one per goroutine or in a
// sync.Pool. A Request it decodes points into it (its descriptors,
// entries, overrides, multipliers and costs are in the decoder's arrays,
// grown as needed) and is valid until the decoder's next Decode or Reset.
// Its strings are substrings of one copy of the input, so that once the
// arrays are large enough a Decode allocates that string and nothing
// else. The zero RequestDecoder is ready to use, without caps; it is not
// safe for concurrent use.
type RequestDecoder struct {
	// Caps bound the requests Decode accepts; see Caps. Reset keeps them.
	Caps Caps

	in        []byte // the input, while decoding
	keyBytes  int    // the bytes of the domain, keys and values so far
	capErr    *CapError
	s         string
	descs     []Descriptor
	states    []descState // what descs[i] holds, while decoding
	entries   []Entry
	overrides []Override
	hits      []uint64
	mults     []uint32
}

// descState is where a descriptor's parts are while a request is decoded:
// its entries are entries[first:end], and its override, multiplier and
// cost, 1-based indexes into overrides, mults and hits (0 when absent).
// Decode points the descriptor at them once every array has its final
// place.
type descState struct {
	first, end        int
	limit, mult, hits int
}

// Decode decodes b, a RateLimitRequest, into r, which it overwrites. It
// accepts what proto.Unmarshal accepts, and refuses what it refuses with a
// *DecodeError (r is then unspecified); see the package doc. A request over
// one of d.Caps is refused with a *CapError, once the fields up to the one
// that passes the cap are decoded (a malformed one among them is a
// DecodeError) and the rest of b is measured for CapError.Got. b may be
// reused as soon as Decode returns.
func (d *RequestDecoder) Decode(b []byte, r *Request) error {
	*r = Request{}
	d.s = string(b)
	d.in, d.keyBytes, d.capErr = b, 0, nil
	d.descs, d.states, d.entries = d.descs[:0], d.states[:0], d.entries[:0]
	d.overrides, d.hits, d.mults = d.overrides[:0], d.hits[:0], d.mults[:0]
	rd := fieldReader{b: b, s: d.s}
	err := rd.each(func(f Field) (err error) {
		switch {
		case f.Num == reqDomain && f.Type == WireBytes:
			if err := d.countKeyBytes(len(f.Bytes)); err != nil {
				return err
			}
			if r.Domain, err = rd.text(&f); err != nil {
				return inField(err, "domain", -1)
			}
		case f.Num == reqDescriptors && f.Type == WireBytes:
			if max := d.Caps.MaxDescriptors; max > 0 && len(d.descs) >= max {
				d.capErr = overCap(d.in, CapDescriptors, max, -1)
				return d.capErr
			}
			if err := d.descriptor(rd.sub(&f)); err != nil {
				if d.capErr != nil {
					return err // located by the CapError itself
				}
				return inField(err, "descriptors", len(d.descs)-1)
			}
		case f.Num == reqHitsAddend && f.Type == WireVarint:
			r.HitsAddend = uint32(f.Uint)
		}
		return nil
	})
	d.in = nil
	switch {
	case d.capErr != nil:
		return d.capErr
	case err != nil:
		return decodeError(err, "RateLimitRequest")
	}
	d.link(r)
	return nil
}

// DecodeRequest decodes b, a RateLimitRequest, as a RequestDecoder of its
// own does: the Request owns its memory.
func DecodeRequest(b []byte) (*Request, error) {
	var d RequestDecoder
	r := new(Request)
	if err := d.Decode(b, r); err != nil {
		return nil, err
	}
	return r, nil
}

// countKeyBytes adds n bytes of a domain, key or value to the request's,
// refusing them when they pass Caps.MaxKeyBytes.
func (d *RequestDecoder) countKeyBytes(n int) error {
	d.keyBytes += n
	if max := d.Caps.MaxKeyBytes; max > 0 && d.keyBytes > max {
		d.capErr = overCap(d.in, CapKeyBytes, max, -1)
		return d.capErr
	}
	return nil
}

// Reset drops what the decoder refers to (the last input's copy, the
// strings of its entries), keeping its arrays and its Caps: call it before putting the
// decoder back in a pool, so that the pool keeps no input alive. The
// Requests it decoded are then no longer valid.
func (d *RequestDecoder) Reset() {
	d.s = ""
	clear(d.descs[:cap(d.descs)])
	clear(d.entries[:cap(d.entries)])
	d.descs, d.states, d.entries = d.descs[:0], d.states[:0], d.entries[:0]
	d.overrides, d.hits, d.mults = d.overrides[:0], d.hits[:0], d.mults[:0]
}

// link points r and its descriptors at the decoder's arrays.
func (d *RequestDecoder) link(r *Request) {
	if len(d.descs) == 0 {
		return
	}
	for i := range d.descs {
		desc, st := &d.descs[i], &d.states[i]
		if st.end > st.first {
			desc.Entries = d.entries[st.first:st.end:st.end]
		}
		if st.limit > 0 {
			desc.Limit = &d.overrides[st.limit-1]
			if st.mult > 0 {
				desc.Limit.UnitMultiplier = &d.mults[st.mult-1]
			}
		}
		if st.hits > 0 {
			desc.HitsAddend = &d.hits[st.hits-1]
		}
	}
	r.Descriptors = d.descs[:len(d.descs):len(d.descs)]
}

// descriptor decodes one RateLimitDescriptor: a new descriptor of the
// request. Repeated limit and hits_addend fields merge, as protobuf's
// singular message fields do.
func (d *RequestDecoder) descriptor(rd fieldReader) error {
	d.descs = append(d.descs, Descriptor{})
	d.states = append(d.states, descState{first: len(d.entries)})
	i := len(d.descs) - 1
	err := rd.each(func(f Field) error {
		st := &d.states[i]
		switch {
		case f.Num == descEntries && f.Type == WireBytes:
			if max := d.Caps.MaxEntries; max > 0 && len(d.entries)-st.first >= max {
				d.capErr = overCap(d.in, CapEntries, max, i)
				return d.capErr
			}
			d.entries = append(d.entries, Entry{})
			e := &d.entries[len(d.entries)-1]
			var n int
			if err := decodePair(rd.sub(&f), &e.Key, &e.Value, &n); err != nil {
				return inField(err, "entries", len(d.entries)-1-st.first)
			}
			if err := d.countKeyBytes(n); err != nil {
				return err
			}
		case f.Num == descLimit && f.Type == WireBytes:
			if err := d.override(rd.sub(&f), st); err != nil {
				return inField(err, "limit", -1)
			}
		case f.Num == descHitsAddend && f.Type == WireBytes:
			st.hits = slot(&d.hits, st.hits)
			if err := decodeWrapper(rd.sub(&f), &d.hits[st.hits-1]); err != nil {
				return inField(err, "hits_addend", -1)
			}
		case f.Num == descIsNegativeHits && f.Type == WireVarint:
			d.descs[i].IsNegativeHits = f.Uint != 0
		}
		return nil
	})
	d.states[i].end = len(d.entries)
	return err
}

// override decodes a RateLimitOverride into the descriptor's override
// (a new one when it has none yet).
func (d *RequestDecoder) override(rd fieldReader, st *descState) error {
	st.limit = slot(&d.overrides, st.limit)
	o := &d.overrides[st.limit-1]
	return rd.each(func(f Field) error {
		switch {
		case decodeRate(&f, &o.RequestsPerUnit, &o.Unit):
		case f.Num == overrideUnitMultiplier && f.Type == WireBytes:
			st.mult = slot(&d.mults, st.mult)
			return decodeMultiplier(rd, &f, &d.mults[st.mult-1])
		}
		return nil
	})
}

// decodeRate decodes f into *requestsPerUnit or *unit when it is one of the
// two fields a RateLimitOverride and a RateLimit begin with; it reports
// whether it was.
func decodeRate(f *Field, requestsPerUnit *uint32, unit *Unit) bool {
	switch {
	case f.Num == overrideRequestsPerUnit && f.Type == WireVarint:
		*requestsPerUnit = uint32(f.Uint)
	case f.Num == overrideUnit && f.Type == WireVarint:
		*unit = Unit(int32(f.Uint))
	default:
		return false
	}
	return true
}

// decodeMultiplier decodes the unit_multiplier (a UInt32Value) in f,
// merging into *m.
func decodeMultiplier(rd fieldReader, f *Field, m *uint32) error {
	v := uint64(*m)
	if err := decodeWrapper(rd.sub(f), &v); err != nil {
		return inField(err, "unit_multiplier", -1)
	}
	*m = uint32(v)
	return nil
}

// slot returns i, the 1-based index of an element of *s, or when i is 0
// (none yet) that of a new zero element.
func slot[T any](s *[]T, i int) int {
	if i > 0 {
		return i
	}
	var zero T
	*s = append(*s, zero)
	return len(*s)
}

// decodeWrapper decodes a UInt64Value or UInt32Value, merging into *v: a
// value field, when there is one, replaces it.
func decodeWrapper(rd fieldReader, v *uint64) error {
	return rd.each(func(f Field) error {
		if f.Num == wrapperValue && f.Type == WireVarint {
			*v = f.Uint
		}
		return nil
	})
}

// decodePair decodes an Entry or a HeaderValue into *key and *value,
// adding the bytes of every key and value field to *n.
func decodePair(rd fieldReader, key, value *string, n *int) error {
	return rd.each(func(f Field) (err error) {
		switch {
		case f.Num == pairKey && f.Type == WireBytes:
			*n += len(f.Bytes)
			if *key, err = rd.text(&f); err != nil {
				return inField(err, "key", -1)
			}
		case f.Num == pairValue && f.Type == WireBytes:
			*n += len(f.Bytes)
			if *value, err = rd.text(&f); err != nil {
				return inField(err, "value", -1)
			}
		}
		return nil
	})
}
