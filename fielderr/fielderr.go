// Package fielderr is the error type rlpkit's packages report bad input with:
// one problem located by a field path, and a list of them. descriptor,
// envoyxds, limit and limit/httplimit name it as their own FieldError and
// error list types (type aliases), and policy's located errors wrap it as
// their cause, so one errors.As finds the problem whichever package
// reported it:
//
//	var fe *fielderr.Error
//	if errors.As(err, &fe) {
//		fmt.Println(fe.Pkg, fe.Field, fe.Detail)
//	}
//
// An Error prints as "PKG: FIELD: DETAIL": every package's errors start with
// its name ("limit: [1].seconds: must be greater than 0"), and the field
// path is written as Kubernetes' apimachinery writes it (field.Path):
// names joined with ".", list indexes and map keys in brackets
// ("rateLimitPolicies[0].hostnames[1]", "[3].max_value"); a TOML key is
// written in TOML's own syntax ("plugins.perIP.max").
//
// The type is defined in package descriptor, as descriptor.FieldError and
// descriptor.Errors, because descriptor imports only the standard library
// and hostindex (it builds for GOOS=wasip1 GOARCH=wasm); Error and List are
// the same types under the names the other packages use.
package fielderr

import "github.com/rlpkit/rlpkit/descriptor"

// Error is one problem of an input, located by a field path: Pkg, Field,
// Detail and the cause Err. It prints as "PKG: FIELD: DETAIL" and Unwrap
// returns Err.
type Error = descriptor.FieldError

// List is every problem found in an input, in input order. It prints one
// problem a line; errors.As and errors.Is look into each problem; Err
// returns nil for an empty List.
type List = descriptor.Errors
