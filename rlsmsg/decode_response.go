package rlsmsg

// DecodeResponse decodes b, a RateLimitResponse, into r, which it
// overwrites. It accepts what proto.Unmarshal accepts, and refuses what it
// refuses with a *DecodeError (r is then unspecified); see the package
// doc. r shares no memory with b: its strings are substrings of one copy
// of b, its RawBody and DynamicMetadata copies.
func DecodeResponse(b []byte, r *Response) error {
	*r = Response{}
	rd := fieldReader{b: b, s: string(b)}
	if err := rd.each(func(f Field) error { return r.field(&rd, &f) }); err != nil {
		return decodeError(err, "RateLimitResponse")
	}
	return nil
}

// field decodes the field f of a RateLimitResponse just read by rd.
func (r *Response) field(rd *fieldReader, f *Field) error {
	if f.Type != WireBytes {
		if f.Num == respOverallCode && f.Type == WireVarint {
			r.OverallCode = Code(int32(f.Uint))
		}
		return nil
	}
	switch f.Num {
	case respStatuses:
		r.Statuses = append(r.Statuses, Status{})
		if err := r.Statuses[len(r.Statuses)-1].decode(rd.sub(f)); err != nil {
			return inField(err, "statuses", len(r.Statuses)-1)
		}
	case respResponseHeadersToAdd:
		return decodeHeader(rd.sub(f), &r.ResponseHeadersToAdd, "response_headers_to_add")
	case respRequestHeadersToAdd:
		return decodeHeader(rd.sub(f), &r.RequestHeadersToAdd, "request_headers_to_add")
	case respRawBody:
		r.RawBody = nil
		if len(f.Bytes) > 0 {
			r.RawBody = append([]byte(nil), f.Bytes...)
		}
	case respDynamicMetadata:
		// A repeated message field merges, as the concatenation of its
		// encodings does.
		if err := validate(f.Bytes, shapeStruct, 1); err != nil {
			return inField(err, "dynamic_metadata", -1)
		}
		if r.DynamicMetadata == nil {
			r.DynamicMetadata = make([]byte, 0, len(f.Bytes))
		}
		r.DynamicMetadata = append(r.DynamicMetadata, f.Bytes...)
	case respQuota:
		if err := validate(f.Bytes, shapeQuota, 1); err != nil {
			return inField(err, "quota", -1)
		}
	}
	return nil
}

// decodeHeader decodes a HeaderValue, appending it to *hs, the field
// called name.
func decodeHeader(rd fieldReader, hs *[]Header, name string) error {
	*hs = append(*hs, Header{})
	h := &(*hs)[len(*hs)-1]
	var n int
	if err := decodePair(rd, &h.Key, &h.Value, &n); err != nil {
		return inField(err, name, len(*hs)-1)
	}
	return nil
}

// decode decodes a DescriptorStatus into s. Repeated current_limit and
// duration_until_reset fields merge.
func (s *Status) decode(rd fieldReader) error {
	var secs int64
	var nanos int32
	err := rd.each(func(f Field) error {
		switch {
		case f.Num == statusCode && f.Type == WireVarint:
			s.Code = Code(int32(f.Uint))
		case f.Num == statusCurrentLimit && f.Type == WireBytes:
			if s.CurrentLimit == nil {
				s.CurrentLimit = new(RateLimit)
			}
			if err := s.CurrentLimit.decode(rd.sub(&f)); err != nil {
				return inField(err, "current_limit", -1)
			}
		case f.Num == statusLimitRemaining && f.Type == WireVarint:
			s.LimitRemaining = uint32(f.Uint)
		case f.Num == statusDurationUntilReset && f.Type == WireBytes:
			s.HasDurationUntilReset = true
			if err := decodeDuration(rd.sub(&f), &secs, &nanos); err != nil {
				return inField(err, "duration_until_reset", -1)
			}
		case f.Num == statusQuota && f.Type == WireBytes:
			if err := validate(f.Bytes, shapeQuota, 2); err != nil {
				return inField(err, "quota", -1)
			}
		}
		return nil
	})
	if s.HasDurationUntilReset {
		s.DurationUntilReset = durationOf(secs, nanos)
	}
	return err
}

// decode decodes a RateLimit into l, merging: the fields present replace
// l's.
func (l *RateLimit) decode(rd fieldReader) error {
	return rd.each(func(f Field) (err error) {
		switch {
		case decodeRate(&f, &l.RequestsPerUnit, &l.Unit):
		case f.Num == limitName && f.Type == WireBytes:
			if l.Name, err = rd.text(&f); err != nil {
				return inField(err, "name", -1)
			}
		case f.Num == limitUnitMultiplier && f.Type == WireBytes:
			return decodeMultiplier(rd, &f, &l.UnitMultiplier)
		}
		return nil
	})
}

// decodeDuration decodes a google.protobuf.Duration, merging into *secs
// and *nanos.
func decodeDuration(rd fieldReader, secs *int64, nanos *int32) error {
	return rd.each(func(f Field) error {
		switch {
		case f.Num == durationSeconds && f.Type == WireVarint:
			*secs = int64(f.Uint)
		case f.Num == durationNanos && f.Type == WireVarint:
			*nanos = int32(f.Uint)
		}
		return nil
	})
}
