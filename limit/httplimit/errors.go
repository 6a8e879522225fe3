package httplimit

import "strings"

// FieldError is one problem in a limit plugin's configuration, located by
// the key it concerns: "max" for a Config, "plugins.rateLimit.max" (in
// TOML's own key syntax) for a plugin read from a file.
type FieldError struct {
	// Path locates the key; empty for the document as a whole.
	Path string
	// Message says what is wrong.
	Message string
}

// Error returns "httplimit: PATH: MESSAGE".
func (e *FieldError) Error() string {
	if e.Path == "" {
		return "httplimit: " + e.Message
	}
	return "httplimit: " + e.Path + ": " + e.Message
}

// ErrorList is every problem found in a configuration, in document order
// (within one plugin, in the order of pingap's configuration table).
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

// errOrNil returns l as an error, or nil when it is empty, so that a nil
// ErrorList never becomes a non-nil error.
func (l ErrorList) errOrNil() error {
	if len(l) == 0 {
		return nil
	}
	return l
}
