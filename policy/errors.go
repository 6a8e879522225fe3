package policy

import (
	"fmt"
	"strings"
)

// Source says where an object or a problem was read: the file ("-" for standard input),
// the document's 0-based index in it, and the 1-based line (0 when unknown).
type Source struct {
	// File is the input's name, "-" for stdin.
	File string
	// Doc is the 0-based index of the document in the input.
	Doc int
	// Line is the 1-based line, 0 when unknown.
	Line int
}

// String returns "file:line", or "file: document N" when the line is unknown.
func (s Source) String() string {
	switch {
	case s.Line > 0:
		return fmt.Sprintf("%s:%d", s.File, s.Line)
	case s.Doc > 0:
		return fmt.Sprintf("%s: document %d", s.File, s.Doc)
	}
	return s.File
}

// Error is one problem of the inputs: where it is, which object it concerns, which field,
// and what is wrong. It prints as
//
//	policies.yaml:14: RateLimitPolicy default/p: spec.default.rateLimits[0].seconds: Invalid value: 0: must be greater than 0
//
// Unlike the field errors of descriptor and limit (fielderr.Error), which start with their
// package's name, it starts with where the problem is: the inputs are files, and the file
// and line are what a user needs first. It names its fields as fielderr.Error does (Field,
// Detail), and Err holds the problem as the package that found it reported it, so
// errors.As finds a *fielderr.Error of a PluginConfig or limits file, or a
// k8s.io/apimachinery *field.Error of a validated object. Package policytest reports the
// problems of PolicyTest files as Errors too.
type Error struct {
	Source
	// Object is "Kind namespace/name" (or "Kind name" for cluster-scoped kinds); empty when
	// the document has no identity yet.
	Object string
	// Field is the field path; empty for the document as a whole.
	Field string
	// Detail says what is wrong.
	Detail string
	// Err is the problem as another package reported it (a *fielderr.Error, a *field.Error,
	// the *fs.PathError of an input that could not be read); nil when policy found it
	// itself. Unwrap returns it.
	Err error
}

// Unwrap returns the problem as the package that found it reported it, Err.
func (e *Error) Unwrap() error { return e.Err }

// Error formats the problem on one line.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Source.String())
	if e.Object != "" {
		b.WriteString(": ")
		b.WriteString(e.Object)
	}
	if e.Field != "" {
		b.WriteString(": ")
		b.WriteString(e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Detail)
	return b.String()
}

// Errors is every problem found in the inputs, in input order. It prints one problem per
// line.
type Errors []*Error

// Error joins the problems, one per line.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns the problems, for errors.As and errors.Is.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}
