package rlsmsg

// RequestSize returns the length of r's encoding: what AppendRequest
// appends.
func RequestSize(r *Request) int {
	n := bytesFieldSize(reqDomain, len(r.Domain))
	for i := range r.Descriptors {
		n += messageFieldSize(reqDescriptors, descriptorSize(&r.Descriptors[i]))
	}
	return n + uintFieldSize(reqHitsAddend, uint64(r.HitsAddend))
}

// AppendRequest appends the encoding of r, a RateLimitRequest, to b and
// returns the extended slice: the bytes proto.Marshal writes for the same
// message (see the package doc). It does not check that the strings are
// UTF-8, where proto.Marshal fails. Grow b by RequestSize first to append
// without reallocating.
func AppendRequest(b []byte, r *Request) []byte {
	b = appendBytesField(b, reqDomain, r.Domain)
	for i := range r.Descriptors {
		d := &r.Descriptors[i]
		b = appendMessageHeader(b, reqDescriptors, descriptorSize(d))
		b = appendDescriptor(b, d)
	}
	return appendUintField(b, reqHitsAddend, uint64(r.HitsAddend))
}

func descriptorSize(d *Descriptor) int {
	n := 0
	for i := range d.Entries {
		n += messageFieldSize(descEntries, pairSize(d.Entries[i].Key, d.Entries[i].Value))
	}
	if d.Limit != nil {
		n += messageFieldSize(descLimit, overrideSize(d.Limit))
	}
	if d.HitsAddend != nil {
		n += messageFieldSize(descHitsAddend, uintFieldSize(wrapperValue, *d.HitsAddend))
	}
	return n + boolFieldSize(descIsNegativeHits, d.IsNegativeHits)
}

func appendDescriptor(b []byte, d *Descriptor) []byte {
	for i := range d.Entries {
		b = appendPair(b, descEntries, d.Entries[i].Key, d.Entries[i].Value)
	}
	if o := d.Limit; o != nil {
		b = appendMessageHeader(b, descLimit, overrideSize(o))
		b = appendUintField(b, overrideRequestsPerUnit, uint64(o.RequestsPerUnit))
		b = appendEnumField(b, overrideUnit, int32(o.Unit))
		if o.UnitMultiplier != nil {
			b = appendWrapper(b, overrideUnitMultiplier, uint64(*o.UnitMultiplier))
		}
	}
	if d.HitsAddend != nil {
		b = appendWrapper(b, descHitsAddend, *d.HitsAddend)
	}
	return appendBoolField(b, descIsNegativeHits, d.IsNegativeHits)
}

func overrideSize(o *Override) int {
	n := uintFieldSize(overrideRequestsPerUnit, uint64(o.RequestsPerUnit)) +
		enumFieldSize(overrideUnit, int32(o.Unit))
	if o.UnitMultiplier != nil {
		n += messageFieldSize(overrideUnitMultiplier, uintFieldSize(wrapperValue, uint64(*o.UnitMultiplier)))
	}
	return n
}

// appendWrapper appends a UInt64Value or UInt32Value field holding v.
func appendWrapper(b []byte, num int, v uint64) []byte {
	b = appendMessageHeader(b, num, uintFieldSize(wrapperValue, v))
	return appendUintField(b, wrapperValue, v)
}

// pairSize is the length of an Entry's or a HeaderValue's content.
func pairSize(key, value string) int {
	return bytesFieldSize(pairKey, len(key)) + bytesFieldSize(pairValue, len(value))
}

// appendPair appends an Entry or a HeaderValue as field num.
func appendPair(b []byte, num int, key, value string) []byte {
	b = appendMessageHeader(b, num, pairSize(key, value))
	b = appendBytesField(b, pairKey, key)
	return appendBytesField(b, pairValue, value)
}
