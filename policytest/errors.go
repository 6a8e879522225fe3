package policytest

import (
	"fmt"
	"strings"
)

// Error is one problem of a PolicyTest file. It prints as
//
//	toystore.test.yaml:14: PolicyTest toystore: spec.cases[0].steps[1].want: Unsupported value: "ok": want OK or OVER_LIMIT
type Error struct {
	// File is the test file.
	File string
	// Line is the 1-based line, 0 when unknown.
	Line int
	// Test is the PolicyTest's name; empty when the document has none yet.
	Test string
	// Field is the field path; empty for the document as a whole.
	Field string
	// Detail says what is wrong.
	Detail string
}

// Error formats the problem on one line.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Test != "" {
		b.WriteString(": " + Kind + " " + e.Test)
	}
	if e.Field != "" {
		b.WriteString(": " + e.Field)
	}
	b.WriteString(": " + e.Detail)
	return b.String()
}

// Errors is every problem of a file, in the order written; it prints one a line.
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
