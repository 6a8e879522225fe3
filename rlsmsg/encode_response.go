package rlsmsg

// ResponseSize returns the length of r's encoding: what AppendResponse
// appends.
func ResponseSize(r *Response) int {
	n := enumFieldSize(respOverallCode, int32(r.OverallCode))
	for i := range r.Statuses {
		n += messageFieldSize(respStatuses, statusSize(&r.Statuses[i]))
	}
	n += headersSize(respResponseHeadersToAdd, r.ResponseHeadersToAdd) +
		headersSize(respRequestHeadersToAdd, r.RequestHeadersToAdd) +
		bytesFieldSize(respRawBody, len(r.RawBody))
	if r.DynamicMetadata != nil {
		n += messageFieldSize(respDynamicMetadata, len(r.DynamicMetadata))
	}
	return n
}

// AppendResponse appends the encoding of r, a RateLimitResponse, to b and
// returns the extended slice: the bytes proto.Marshal writes for the same
// message (see the package doc), DynamicMetadata written as it is. It does
// not check that the strings are UTF-8, where proto.Marshal fails. Grow b
// by ResponseSize first to append without reallocating.
func AppendResponse(b []byte, r *Response) []byte {
	b = appendEnumField(b, respOverallCode, int32(r.OverallCode))
	for i := range r.Statuses {
		s := &r.Statuses[i]
		b = appendMessageHeader(b, respStatuses, statusSize(s))
		b = appendStatus(b, s)
	}
	b = appendHeaders(b, respResponseHeadersToAdd, r.ResponseHeadersToAdd)
	b = appendHeaders(b, respRequestHeadersToAdd, r.RequestHeadersToAdd)
	b = appendBytesField(b, respRawBody, r.RawBody)
	if r.DynamicMetadata != nil {
		b = appendMessageHeader(b, respDynamicMetadata, len(r.DynamicMetadata))
		b = append(b, r.DynamicMetadata...)
	}
	return b
}

func statusSize(s *Status) int {
	n := enumFieldSize(statusCode, int32(s.Code))
	if s.CurrentLimit != nil {
		n += messageFieldSize(statusCurrentLimit, limitSize(s.CurrentLimit))
	}
	n += uintFieldSize(statusLimitRemaining, uint64(s.LimitRemaining))
	if s.HasDurationUntilReset {
		n += messageFieldSize(statusDurationUntilReset, durationSize(s.DurationUntilReset))
	}
	return n
}

func appendStatus(b []byte, s *Status) []byte {
	b = appendEnumField(b, statusCode, int32(s.Code))
	if l := s.CurrentLimit; l != nil {
		b = appendMessageHeader(b, statusCurrentLimit, limitSize(l))
		b = appendUintField(b, limitRequestsPerUnit, uint64(l.RequestsPerUnit))
		b = appendEnumField(b, limitUnit, int32(l.Unit))
		b = appendBytesField(b, limitName, l.Name)
		if l.UnitMultiplier != 0 {
			b = appendWrapper(b, limitUnitMultiplier, uint64(l.UnitMultiplier))
		}
	}
	b = appendUintField(b, statusLimitRemaining, uint64(s.LimitRemaining))
	if s.HasDurationUntilReset {
		b = appendDuration(b, statusDurationUntilReset, s.DurationUntilReset)
	}
	return b
}

func limitSize(l *RateLimit) int {
	n := uintFieldSize(limitRequestsPerUnit, uint64(l.RequestsPerUnit)) +
		enumFieldSize(limitUnit, int32(l.Unit)) +
		bytesFieldSize(limitName, len(l.Name))
	if l.UnitMultiplier != 0 {
		n += messageFieldSize(limitUnitMultiplier, uintFieldSize(wrapperValue, uint64(l.UnitMultiplier)))
	}
	return n
}

func headersSize(num int, hs []Header) int {
	n := 0
	for i := range hs {
		n += messageFieldSize(num, pairSize(hs[i].Key, hs[i].Value))
	}
	return n
}

func appendHeaders(b []byte, num int, hs []Header) []byte {
	for i := range hs {
		b = appendPair(b, num, hs[i].Key, hs[i].Value)
	}
	return b
}
