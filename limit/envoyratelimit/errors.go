package envoyratelimit

import (
	"errors"
	"fmt"
)

// LoadError is one problem in a configuration file. Its message is the
// reference's (such as "config error, unknown key 'foo'"), located by the
// file's key, the line and the field path:
//
//	config.mail.yaml:7: descriptors[0].rate_limit.foo: config error, unknown key 'foo'
type LoadError struct {
	// File is the file's key (its path relative to the runtime directory,
	// '/' replaced by '.').
	File string
	// Line is the 1-based line, 0 when unknown.
	Line int
	// Path is the field path within the file ("" for the whole file).
	Path string
	// Msg is the reference's message.
	Msg string
}

// Error implements error.
func (e *LoadError) Error() string {
	s := e.File
	if e.Line > 0 {
		s += fmt.Sprintf(":%d", e.Line)
	}
	if e.Path != "" {
		s += ": " + e.Path
	}
	return s + ": " + e.Msg
}

// ErrNoConfig is returned by Evaluate when no configuration was loaded.
var ErrNoConfig = errors.New("no rate limit configuration loaded")

// InvalidRequestError is a request that cannot be evaluated: an empty
// domain, no descriptors or a limit override with an invalid unit. Servers answer it with an error (gRPC UNKNOWN in the
// reference, InvalidArgument here).
type InvalidRequestError struct {
	// Msg says what is wrong, with the field path.
	Msg string
}

// Error implements error.
func (e *InvalidRequestError) Error() string { return "ratelimit: invalid request: " + e.Msg }

// StoreError is a counter store that could not answer.
type StoreError struct {
	// Err is the store's error.
	Err error
}

// Error implements error.
func (e *StoreError) Error() string { return "ratelimit: counter store: " + e.Err.Error() }

// Unwrap returns the store's error.
func (e *StoreError) Unwrap() error { return e.Err }
