package policyapi

import (
	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/policy"
)

// API is one policy API rlpkit reads: which of a set's objects are its policies, and how
// they compile. Packages merge (apim.kuadrant.io/v1alpha1), kuadrant (kuadrant.io/v1) and
// envoygateway (BackendTrafficPolicy) implement it; package policyapi/apis lists them and
// selects those an input holds.
type API interface {
	// Name is the API's name as its objects say it, e.g. "kuadrant.io/v1
	// RateLimitPolicy"; it heads the API's section when an input holds several APIs.
	Name() string
	// Policies returns how many of the API's policies set holds.
	Policies(set *policy.Set) int
	// Formats are the output formats of Compiled.Output beyond the default one ("").
	Formats() []string
	// Compile compiles the API's policies of set over its Gateways and HTTPRoutes. The
	// error is for what no status can say (a configuration the API's data plane rejects).
	Compile(set *policy.Set) (Compiled, error)
}

// Compiled is one API's policies compiled over a set's Gateways.
type Compiled interface {
	// Statuses are the statuses of every policy of the API, sorted by name (then
	// ancestor).
	Statuses() []PolicyStatus
	// Warnings are the problems of valid inputs a careful user wants to hear of, each at
	// its line: every policy that is not Accepted or not Enforced (a target not found with
	// its likely misspelling), routes that attach to no Gateway. rlpkit's --strict fails
	// on any.
	Warnings() []Warning
	// Output is the printed form of the result (JSON-encodable) in format, "" for the
	// API's default or one of its API's Formats; caveats are notes for stderr about what
	// the format cannot say.
	Output(format string) (out any, caveats []string, err error)
	// Limits are the rate-limit service's limits, in limitador's format, of every Gateway.
	Limits() []limitador.Limit
	// Gateway returns the data plane compiled for Gateway "namespace/name", false when
	// the Gateway is not among the compiled ones.
	Gateway(name string) (Gateway, bool)
}

// Gateway is one Gateway's data plane as an API compiled it: the evaluation paths (rlpkit
// descriptors, test, simulate) run requests through it.
type Gateway interface {
	// Config is the Gateway's data-plane configuration (JSON-encodable): the PluginConfig
	// of its rate-limit filter, wasm-shim's configuration, or Envoy's listeners and routes.
	Config() any
	// Describe returns what the proxy does with req before the rate-limit service, as
	// rlpkit descriptors prints it (JSON-encodable), and, with explain, a trace of every
	// decision, one a line.
	Describe(req *Request, explain bool) (out any, trace string, err error)
}

// File is a file of a data plane's configuration: its name and content.
type File struct {
	Name string
	Data []byte
}

// ServiceFiler is a Compiled whose rate-limit service reads configuration files
// (envoyproxy/ratelimit's, for Envoy Gateway) rather than Limits.
type ServiceFiler interface {
	// ServiceFiles returns the rate-limit service's files, by name.
	ServiceFiles() ([]File, error)
}
