package yamljson

import (
	"bytes"
	"errors"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"
)

// locateSyntaxError corrects the line of a syntax error of the YAML parser, which often
// names where the enclosing mapping or sequence began (or the line before the one that is
// wrong) rather than the line that is wrong, and adds a hint for common mistakes.
//
// The line that is wrong is the first line such that the stream up to and including it
// fails to parse with the same message: before it, the text parses. It is found by
// bisection, parsing O(log lines) prefixes of the stream; when the prefixes do not fail
// that way (the parser's view of the error depends on what follows), the parser's line is
// kept.
func locateSyntaxError(data []byte, e *Error) {
	var ends []int // ends[i] is the offset after line i+1
	for i, c := range data {
		if c == '\n' {
			ends = append(ends, i+1)
		}
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		ends = append(ends, len(data))
	}
	fails := func(lines int) bool {
		err := parseStream(data[:ends[lines-1]])
		return err != nil && parserError(0, err).Msg == e.Msg
	}
	if len(ends) > 0 && fails(len(ends)) {
		lo, hi := 1, len(ends)
		for lo < hi {
			mid := lo + (hi-lo)/2
			if fails(mid) {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		e.Line = lo
	}
	if e.Line < 1 || e.Line > len(ends) {
		return
	}
	start := 0
	if e.Line > 1 {
		start = ends[e.Line-2]
	}
	line := data[start:ends[e.Line-1]]
	switch {
	case strings.Contains(e.Msg, "cannot start any token") && bytes.ContainsRune(line, '\t'):
		e.Msg += " (YAML indents with spaces, not tabs)"
	case e.Msg == "found unexpected end of stream":
		e.Msg += " (is a quote, [ or { opened on this line closed?)"
	case e.Msg == "mapping values are not allowed in this context":
		e.Msg += " (is this line indented deeper than it should be, or does a value hold \": \" and need quotes?)"
	case e.Msg == "did not find expected key":
		e.Msg += " (is this line indented like the lines around it?)"
	}
}

// parseStream parses every document of a stream and returns the first error.
func parseStream(data []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		err := decode(dec, &n)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
