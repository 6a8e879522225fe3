package httplimit

// pkg starts every error of this package. A problem in a limit plugin's
// configuration is a *fielderr.Error with Pkg "httplimit", located by the
// key it concerns: "max" for a Config, "plugins.rateLimit.max" (in TOML's
// own key syntax) for a plugin read from a file. It prints as
// "httplimit: plugins.rateLimit.max: must not be negative, got -1". The
// problems of one configuration are reported together as a fielderr.List,
// in document order (within one plugin, in the order of pingap's
// configuration table).
const pkg = "httplimit"
