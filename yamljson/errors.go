package yamljson

import (
	"fmt"
	"strconv"
	"strings"
)

// Error is one problem found while converting a YAML stream. Convert returns
// an *Error when it finds one problem and errors.Join of several *Error values
// when it finds more; errors.As finds the first.
//
// Its message reads "yamljson: line 7: duplicate key ..." and, when the stream
// held more than one document, "yamljson: document 2: line 7: ...", where 2 is
// the 0-based [Document.Index]. Lines count from 1 over the whole stream, not
// per document.
type Error struct {
	Doc  int    // Index of the document, 0-based
	Line int    // 1-based line in the stream; 0 when the parser did not say
	Msg  string // what is wrong, without position

	multi bool // the stream held more than one document, so the message names it
}

// Error formats the error as described on [Error].
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("yamljson: ")
	if e.multi {
		fmt.Fprintf(&b, "document %d: ", e.Doc)
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	b.WriteString(e.Msg)
	return b.String()
}

// parserError turns an error of the YAML parser ("yaml: line 3: did not find
// expected key") into an *Error carrying the line it names.
func parserError(doc int, err error) *Error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	e := &Error{Doc: doc, Msg: msg}
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		num, tail, ok := strings.Cut(rest, ": ")
		if n, perr := strconv.Atoi(num); ok && perr == nil && n > 0 {
			e.Line, e.Msg = n, tail
		}
	}
	return e
}
