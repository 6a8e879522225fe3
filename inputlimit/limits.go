package inputlimit

import (
	"fmt"
	"io"
	"os"
)

// The limits; see the package documentation.
const (
	// MaxBytes is the largest file, stream or object read, in bytes.
	MaxBytes = 16 << 20
	// MaxDepth is how deep collections may nest, aliases expanded.
	MaxDepth = 1000
	// MaxAliasValues is how many values YAML aliases and merge keys may
	// add to a document beyond those written in it.
	MaxAliasValues = 100_000
	// MaxAliasBytes is how many bytes of text (JSON, once converted) YAML
	// aliases and merge keys may add to a document.
	MaxAliasBytes = 4 << 20
	// MaxLineBytes is the longest line of a line-oriented input (an access
	// log), in bytes.
	MaxLineBytes = 1 << 20
)

// Error is an input refused for exceeding a limit. It prints as
// "NAME: LINE: WHAT exceeds the limit of LIMIT", the line left out when it
// is not known.
type Error struct {
	// Name is the input: a file's path, "<stdin>", an object's name.
	Name string
	// Line is the 1-based line where the limit was crossed, 0 when unknown.
	Line int
	// What says what exceeds the limit ("the file's 5000000 bytes").
	What string
	// Limit is the limit, with its unit ("4194304 bytes").
	Limit string
}

// Error implements error.
func (e *Error) Error() string {
	if e.Name == "" {
		return e.Detail()
	}
	return e.Name + ": " + e.Detail()
}

// Detail is the message without the input's name, for callers that name
// the input themselves.
func (e *Error) Detail() string {
	s := ""
	if e.Line > 0 {
		s = fmt.Sprintf("line %d: ", e.Line)
	}
	return s + e.What + " exceeds the limit of " + e.Limit
}

// CheckSize returns an *Error when n bytes of the input name exceed MaxBytes.
func CheckSize(name string, n int64) error {
	if n <= MaxBytes {
		return nil
	}
	return &Error{Name: name, What: fmt.Sprintf("the size, %d bytes,", n), Limit: bytesLimit()}
}

// ReadFile reads the named file as os.ReadFile does, but refuses a file
// larger than MaxBytes without reading more than MaxBytes+1 of it. The
// error of a file too large is an *Error naming it.
func ReadFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		if err := CheckSize(name, fi.Size()); err != nil {
			return nil, err
		}
	}
	return ReadAll(f, name)
}

// ReadAll reads r to its end as io.ReadAll does, but stops after MaxBytes+1
// bytes and then returns an *Error naming the input name.
func ReadAll(r io.Reader, name string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxBytes {
		return nil, &Error{Name: name, What: fmt.Sprintf("the size, more than %d bytes,", MaxBytes), Limit: bytesLimit()}
	}
	return data, nil
}

// bytesLimit is MaxBytes as an Error's Limit.
func bytesLimit() string { return fmt.Sprintf("%d bytes (%d MiB)", MaxBytes, MaxBytes>>20) }
