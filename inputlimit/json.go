package inputlimit

import "fmt"

// CheckJSON returns an *Error when the JSON text data of the input name is
// larger than MaxBytes or nests arrays and objects more than MaxDepth deep,
// and nil otherwise; whether data is valid JSON is left to its decoder. It
// reads data once, without allocating, so that a decoder is only given
// input whose cost is bounded.
func CheckJSON(name string, data []byte) error {
	if err := CheckSize(name, int64(len(data))); err != nil {
		return err
	}
	depth, line, inString, escaped := 0, 1, false, false
	for _, c := range data {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			if depth++; depth > MaxDepth {
				return DepthError(name, line)
			}
		case c == ']' || c == '}':
			depth--
		case c == '\n':
			line++
		}
	}
	return nil
}

// DepthError returns the *Error of the input name, nested deeper than
// MaxDepth at line (0 when unknown), for readers that measure depth
// themselves.
func DepthError(name string, line int) error {
	return &Error{Name: name, Line: line, What: "nesting", Limit: fmt.Sprintf("%d levels", MaxDepth)}
}
