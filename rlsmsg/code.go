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

var codeNames = [...]string{CodeUnknown: "UNKNOWN", CodeOK: "OK", CodeOverLimit: "OVER_LIMIT"}

// String returns Envoy's name of c: UNKNOWN, OK or OVER_LIMIT, and
// "Code(N)" for values outside the enum.
func (c Code) String() string { return enumName(codeNames[:], int64(c), "Code") }

// enumName returns names[v], the name of an enum's value v, or "typ(v)" for
// a value without a name.
func enumName(names []string, v int64, typ string) string {
	if v >= 0 && v < int64(len(names)) && names[v] != "" {
		return names[v]
	}
	return typ + "(" + strconv.FormatInt(v, 10) + ")"
}

// MarshalText encodes the code by name.
func (c Code) MarshalText() ([]byte, error) { return []byte(c.String()), nil }
