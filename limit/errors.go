package limit

import "strings"

// InvalidRequestError is a request an evaluator cannot evaluate: each
// problem names the field ("descriptors[0].limit.unit: UNKNOWN is not a
// unit ..."). A server answers it with its invalid-request code.
type InvalidRequestError struct {
	// Problems are what is wrong, each starting with the field path.
	Problems []string
}

// Error returns "invalid request: " and the problems, separated by "; ".
func (e *InvalidRequestError) Error() string {
	return "invalid request: " + strings.Join(e.Problems, "; ")
}

// InvalidRequest returns an *InvalidRequestError of problems, or nil when there are
// none.
func InvalidRequest(problems []string) error {
	if len(problems) == 0 {
		return nil
	}
	return &InvalidRequestError{Problems: problems}
}

// StoreError is the error an evaluator returns when the counter store
// cannot answer: a server answers "unavailable" and lets its clients'
// failure mode decide.
type StoreError struct {
	// Err is the store's error.
	Err error
}

// Error returns "counter store: " and the store's error.
func (e *StoreError) Error() string { return "counter store: " + e.Err.Error() }

// Unwrap returns the store's error.
func (e *StoreError) Unwrap() error { return e.Err }
