package rlsmsg

import "strconv"

// Code is a rate-limit answer: RateLimitResponse.Code, with the same
// numbers.
type Code int32

const (
	// CodeUnknown is no answer.
	CodeUnknown Code = 0
	// CodeOK means under the limit.
	CodeOK Code = 1
	// CodeOverLimit means over the limit.
	CodeOverLimit Code = 2
)

// String returns Envoy's name of c: UNKNOWN, OK or OVER_LIMIT, and
// "Code(N)" for values outside the enum.
func (c Code) String() string {
	switch c {
	case CodeOK:
		return "OK"
	case CodeOverLimit:
		return "OVER_LIMIT"
	case CodeUnknown:
		return "UNKNOWN"
	}
	return "Code(" + strconv.Itoa(int(c)) + ")"
}

// MarshalText encodes the code by name.
func (c Code) MarshalText() ([]byte, error) { return []byte(c.String()), nil }
