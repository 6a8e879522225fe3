package policyapi

import (
	"strings"

	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// Frontend is what a proxy does with a request before the rate-limit service: it builds
// the rate-limit request, or decides not to call the service. A Frontend may reuse memory
// between calls, so it is for one goroutine at a time.
type Frontend interface {
	// Generate writes into out the rate-limit request the proxy sends for in and reports
	// whether it calls the service. With trace not nil, it writes there, one a line, why.
	// out's memory may be reused by the next call.
	Generate(in *Request, out *rlsmsg.Request, trace *strings.Builder) bool
}

// Target is a Gateway whose data plane makes one rate-limit call per request, decided by
// limits in limitador's format: rlpkit test and simulate run requests through its
// Frontend against its limits, counted as the rate-limit service counts them.
type Target interface {
	// Target returns the Gateway's Frontend and the service's limits, each named after
	// the policy (and field) it comes from where the API names them.
	Target() (Frontend, []limitador.Limit, error)
}
