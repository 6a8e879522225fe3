package httplimit

import "github.com/rlpkit/rlpkit/fielderr"

// FieldError is one problem in a limit plugin's configuration, located by
// the key it concerns: "max" for a Config, "plugins.rateLimit.max" (in
// TOML's own key syntax) for a plugin read from a file. It is
// fielderr.Error, with Pkg "httplimit": it prints as
// "httplimit: plugins.rateLimit.max: must not be negative, got -1".
type FieldError = fielderr.Error

// ErrorList is every problem found in a configuration, in document order
// (within one plugin, in the order of pingap's configuration table): a
// fielderr.List. Callers that print errors one a line range over it.
type ErrorList = fielderr.List

// pkg starts every error of this package.
const pkg = "httplimit"
