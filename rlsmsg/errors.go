package rlsmsg

import (
	"errors"
	"strconv"
	"strings"
)

// DecodeError is an input a decoder refuses, for the reasons proto.Unmarshal
// refuses it: the field where decoding stopped, and what is wrong there.
type DecodeError struct {
	// Field is the path of the field from the message decoded, in the
	// .proto files' names, repeated fields indexed by occurrence:
	// "RateLimitRequest.descriptors[0].entries[1].key". It names the
	// innermost message when the fault is in the message's own encoding
	// (Err then gives the field number, when it could be read). The
	// middle of a path through more than 24 fields is left out, as
	// "(... N fields ...)".
	Field string
	// Err is what is wrong, such as a truncated field or a string that is
	// not UTF-8.
	Err error
}

// Error returns "rlsmsg: FIELD: ERR".
func (e *DecodeError) Error() string { return "rlsmsg: " + e.Field + ": " + e.Err.Error() }

// Unwrap returns Err.
func (e *DecodeError) Unwrap() error { return e.Err }

// What a decoder refuses, as DecodeError.Err or in it.
var (
	errTruncated   = errors.New("truncated")
	errOverflow    = errors.New("varint overflows 64 bits")
	errFieldNumber = errors.New("invalid field number")
	errWireType    = errors.New("invalid wire type")
	errEndGroup    = errors.New("end of group without its start")
	errUTF8        = errors.New("invalid UTF-8")
	errDepth       = errors.New("messages nested too deeply")
)

// wireError is a fault in the encoding of a message's field num (0 when
// the tag itself could not be read).
type wireError struct {
	num uint64
	err error
}

func (e *wireError) Error() string {
	if e.num == 0 {
		return e.err.Error()
	}
	return "field " + strconv.FormatUint(e.num, 10) + ": " + e.err.Error()
}

func (e *wireError) Unwrap() error { return e.err }

// pathError is a fault on its way out of the messages it is in: the
// fields it is in, innermost first, so that each adds itself in constant
// time however deep the fault.
type pathError struct {
	fields []string
	err    error
}

func (e *pathError) Error() string { return e.decodeError().Error() }

// inField locates err in the field called name, at index i of the field
// when i >= 0: err is a *pathError from inside the field, which it
// extends, or the fault found in the field itself.
func inField(err error, name string, i int) error {
	if i >= 0 {
		name += "[" + strconv.Itoa(i) + "]"
	}
	pe, ok := err.(*pathError)
	if !ok {
		return &pathError{fields: []string{name}, err: err}
	}
	pe.fields = append(pe.fields, name)
	return pe
}

// decodeError returns err, located in message top, as the *DecodeError a
// decoder returns.
func decodeError(err error, top string) error {
	return inField(err, top, -1).(*pathError).decodeError()
}

// maxPath is how many fields of a path a DecodeError spells out.
const maxPath = 24

func (e *pathError) decodeError() *DecodeError {
	var sb strings.Builder
	n := len(e.fields)
	for i := n - 1; i >= 0; i-- {
		if sb.Len() > 0 {
			sb.WriteByte('.')
		}
		if n > maxPath && i == n-1-maxPath/2 {
			sb.WriteString("(... " + strconv.Itoa(n-maxPath) + " fields ...)")
			i = maxPath / 2 // then the innermost maxPath/2
			continue
		}
		sb.WriteString(e.fields[i])
	}
	return &DecodeError{Field: sb.String(), Err: e.err}
}
