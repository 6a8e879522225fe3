// Package fielderr is the error type rlpkit's packages report bad input with:
// one problem located by a field path, and a list of them. descriptor,
// envoyxds, limit and limit/httplimit report their problems as a List of
// *Error, and policy's located errors wrap them as their cause, so one
// errors.As finds the problem whichever package reported it:
//
//	var fe *fielderr.Error
//	if errors.As(err, &fe) {
//		fmt.Println(fe.Pkg, fe.Field, fe.Detail)
//	}
//
// An Error prints as "PKG: FIELD: DETAIL": every package's errors start with
// its name ("limit: [1].seconds: must be greater than 0"), and the field
// path is written as Kubernetes' apimachinery writes it (field.Path):
// names joined with ".", list indexes and map keys in brackets
// ("rateLimitPolicies[0].hostnames[1]", "[3].max_value"); a TOML key is
// written in TOML's own syntax ("plugins.perIP.max").
//
// The package imports only the standard library, so that descriptor, which
// builds for GOOS=wasip1 GOARCH=wasm, can import it.
package fielderr

import "strings"

// Error is one problem of an input, located by a field path. The zero value
// prints as an empty message; fill Pkg, Field and Detail (or Err).
type Error struct {
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
func (e *Error) Error() string {
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
func (e *Error) Unwrap() error { return e.Err }

// List is every problem found in an input, in input order. It prints one
// problem a line; errors.As and errors.Is look into each problem.
type List []*Error

// Error returns the problems, one a line.
func (l List) Error() string {
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
func (l List) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

// Err returns l as an error, or nil when l is empty, so that an empty List
// never becomes a non-nil error.
func (l List) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}
