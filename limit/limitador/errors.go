package limitador

import "github.com/rlpkit/rlpkit/fielderr"

// pkg starts every error of this package. A problem in a list of limits is
// a *fielderr.Error with Pkg "limit", located by a field path such as
// "[3].max_value" or "[0].conditions[1]": it prints as
// "limit: [1].seconds: must be greater than 0". The problems of one list
// are reported together as a fielderr.List, in document order.
const pkg = "limit"

// addError appends the problem at path to l.
func addError(l *fielderr.List, path, msg string) {
	*l = append(*l, &fielderr.Error{Pkg: pkg, Field: path, Detail: msg})
}
