package descriptor

import "strings"

// FieldError and Errors are rlpkit's one field-error type, shared by
// descriptor, envoyxds, limit, limit/httplimit and policy (package fielderr
// names them Error and List). They live here because descriptor imports only
// the standard library and hostindex, to build for GOOS=wasip1 GOARCH=wasm.

// FieldError is one problem of an input, located by a field path. The zero value
// prints as an empty message; fill Pkg, Field and Detail (or Err).
type FieldError struct {
	// Pkg is the name of the package that reports the problem ("limit",
	// "descriptor"); it starts the message. Empty prints no prefix.
	Pkg string
	// Field is the path of the offending field; empty for the input as a
	// whole.
	Field string
	// Detail says what is wrong, and what to do where that is not obvious.
	// Empty means Err's message.
	Detail string
	// Err is the cause, when the problem comes from another error (a
	// package's own field error, a parser's); nil otherwise. Unwrap returns
	// it.
	Err error
}

// Error returns "PKG: FIELD: DETAIL", leaving out an empty Pkg or Field.
func (e *FieldError) Error() string {
	var b strings.Builder
	if e.Pkg != "" {
		b.WriteString(e.Pkg)
		b.WriteString(": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	switch {
	case e.Detail != "":
		b.WriteString(e.Detail)
	case e.Err != nil:
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the cause, Err.
func (e *FieldError) Unwrap() error { return e.Err }

// Errors is every problem found in an input, in input order. It prints one
// problem a line; errors.As and errors.Is look into each problem.
type Errors []*FieldError

// Error returns the problems, one a line.
func (l Errors) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Unwrap returns the problems, for errors.As and errors.Is.
func (l Errors) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

// Err returns l as an error, or nil when l is empty, so that an empty Errors
// never becomes a non-nil error.
func (l Errors) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}
