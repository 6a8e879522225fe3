package limitador

import "github.com/rlpkit/rlpkit/fielderr"

// FieldError is one problem in a list of limits, located by a field path
// such as "[3].max_value" or "[0].conditions[1]". It is fielderr.Error, with
// Pkg "limit": it prints as "limit: [1].seconds: must be greater than 0".
type FieldError = fielderr.Error

// ErrorList is every problem found in a list of limits, in document order:
// a fielderr.List. Callers that print errors one a line range over it.
type ErrorList = fielderr.List

// pkg starts every error of this package.
const pkg = "limit"

// addError appends the problem at path to l.
func addError(l *ErrorList, path, msg string) {
	*l = append(*l, &FieldError{Pkg: pkg, Field: path, Detail: msg})
}
