package limit

import "strings"

// FieldError is one problem in a list of limits, located by a field path
// such as "[3].max_value" or "[0].conditions[1]".
type FieldError struct {
	// Path locates the field; empty for the document as a whole.
	Path string
	// Message says what is wrong.
	Message string
}

// Error returns "limit: PATH: MESSAGE".
func (e *FieldError) Error() string {
	if e.Path == "" {
		return "limit: " + e.Message
	}
	return "limit: " + e.Path + ": " + e.Message
}

// ErrorList is every problem found in a list of limits, in document order.
// Callers that print errors one a line range over it.
type ErrorList []*FieldError

// Error returns the errors one a line.
func (l ErrorList) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

func (l *ErrorList) add(path, msg string) {
	*l = append(*l, &FieldError{Path: path, Message: msg})
}

// err returns l as an error, or nil when empty.
func (l ErrorList) err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}
