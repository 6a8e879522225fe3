package rlswire

// Code is a RateLimitResponse.Code.
type Code int32

// The codes of RateLimitResponse.Code.
const (
	CodeUnknown   Code = 0
	CodeOK        Code = 1
	CodeOverLimit Code = 2
)

// Response is the part of an envoy.service.ratelimit.v3.RateLimitResponse a filter acts on.
type Response struct {
	// OverallCode is the decision for the request.
	OverallCode Code
	// Statuses are the per-descriptor statuses, in request order.
	Statuses []Status
	// ResponseHeadersToAdd are headers for the client's response (or the local reply when
	// over the limit). Value is the HeaderValue's value field; raw_value is not read, as
	// Envoy's own rate-limit filter does not read it.
	ResponseHeadersToAdd []Header
}

// Status is a RateLimitResponse.DescriptorStatus.
type Status struct {
	// Code is the descriptor's decision.
	Code Code
	// CurrentLimit is the limit that decided; nil when none applied.
	CurrentLimit *RateLimit
	// LimitRemaining is what is left of the limit.
	LimitRemaining uint32
	// DurationUntilReset is the time until the limit resets; nil when unset.
	DurationUntilReset *Duration
}

// RateLimit is a RateLimitResponse.RateLimit.
type RateLimit struct {
	// Name is the limit's name.
	Name string
	// RequestsPerUnit is the limit.
	RequestsPerUnit uint32
	// Unit is a RateLimitResponse.RateLimit.Unit (1 SECOND .. 6 YEAR, 0 UNKNOWN).
	Unit int32
}

// Duration is a google.protobuf.Duration.
type Duration struct {
	// Seconds and Nanos are the duration's fields, unvalidated.
	Seconds int64
	Nanos   int32
}

// Header is an envoy.config.core.v3.HeaderValue without its raw_value.
type Header struct {
	// Key is the header name.
	Key string
	// Value is the header value.
	Value string
}

// Field numbers of the response messages.
const (
	respOverallCode          = 1
	respStatuses             = 2
	respResponseHeadersToAdd = 3

	statusCode               = 1
	statusCurrentLimit       = 2
	statusLimitRemaining     = 3
	statusDurationUntilReset = 4

	rateLimitRequestsPerUnit = 1
	rateLimitUnit            = 2
	rateLimitName            = 3

	durationSeconds = 1
	durationNanos   = 2

	headerKey   = 1
	headerValue = 2
)

// DecodeResponse decodes a RateLimitResponse. It fails, naming what is wrong, on input
// proto.Unmarshal would also reject.
func DecodeResponse(b []byte) (*Response, error) {
	var resp Response
	r := reader{b: b}
	var f field
	for {
		ok, err := r.next(&f)
		if err != nil {
			return nil, err
		}
		if !ok {
			return &resp, nil
		}
		switch {
		case f.num == respOverallCode && f.typ == wireVarint:
			resp.OverallCode = Code(int32(f.u))
		case f.num == respStatuses && f.typ == wireBytes:
			var st Status
			if err := decodeStatus(f.bytes, &st); err != nil {
				return nil, err
			}
			resp.Statuses = append(resp.Statuses, st)
		case f.num == respResponseHeadersToAdd && f.typ == wireBytes:
			var h Header
			if err := decodeHeader(f.bytes, &h); err != nil {
				return nil, err
			}
			resp.ResponseHeadersToAdd = append(resp.ResponseHeadersToAdd, h)
		}
	}
}

func decodeStatus(b []byte, st *Status) error {
	r := reader{b: b}
	var f field
	for {
		ok, err := r.next(&f)
		if err != nil || !ok {
			return err
		}
		switch {
		case f.num == statusCode && f.typ == wireVarint:
			st.Code = Code(int32(f.u))
		case f.num == statusCurrentLimit && f.typ == wireBytes:
			if st.CurrentLimit == nil {
				st.CurrentLimit = new(RateLimit)
			}
			if err := decodeRateLimit(f.bytes, st.CurrentLimit); err != nil {
				return err
			}
		case f.num == statusLimitRemaining && f.typ == wireVarint:
			st.LimitRemaining = uint32(f.u)
		case f.num == statusDurationUntilReset && f.typ == wireBytes:
			if st.DurationUntilReset == nil {
				st.DurationUntilReset = new(Duration)
			}
			if err := decodeDuration(f.bytes, st.DurationUntilReset); err != nil {
				return err
			}
		}
	}
}

func decodeRateLimit(b []byte, l *RateLimit) error {
	r := reader{b: b}
	var f field
	for {
		ok, err := r.next(&f)
		if err != nil || !ok {
			return err
		}
		switch {
		case f.num == rateLimitRequestsPerUnit && f.typ == wireVarint:
			l.RequestsPerUnit = uint32(f.u)
		case f.num == rateLimitUnit && f.typ == wireVarint:
			l.Unit = int32(f.u)
		case f.num == rateLimitName && f.typ == wireBytes:
			if l.Name, err = f.str("RateLimit.name"); err != nil {
				return err
			}
		}
	}
}

func decodeDuration(b []byte, d *Duration) error {
	r := reader{b: b}
	var f field
	for {
		ok, err := r.next(&f)
		if err != nil || !ok {
			return err
		}
		switch {
		case f.num == durationSeconds && f.typ == wireVarint:
			d.Seconds = int64(f.u)
		case f.num == durationNanos && f.typ == wireVarint:
			d.Nanos = int32(f.u)
		}
	}
}

func decodeHeader(b []byte, h *Header) error {
	r := reader{b: b}
	var f field
	for {
		ok, err := r.next(&f)
		if err != nil || !ok {
			return err
		}
		switch {
		case f.num == headerKey && f.typ == wireBytes:
			if h.Key, err = f.str("HeaderValue.key"); err != nil {
				return err
			}
		case f.num == headerValue && f.typ == wireBytes:
			if h.Value, err = f.str("HeaderValue.value"); err != nil {
				return err
			}
		}
	}
}
