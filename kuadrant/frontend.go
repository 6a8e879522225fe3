package kuadrant

import (
	"fmt"
	"strings"

	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policyapi"
	"github.com/rlpkit/rlpkit/rlsmsg"
	"github.com/rlpkit/rlpkit/wasmshim"
)

// NewFrontend returns the Frontend of a wasm-shim configuration (kuadrant.io/v1
// RateLimitPolicies compiled by this package): the rate-limit request is the one of the
// first action of the applying action set that calls a rate-limit service; the others are
// named in the trace. It is a policyapi.AuthFrontend: it says which auth.* attributes
// each limit reads.
func NewFrontend(ev *wasmshim.Evaluator) policyapi.Frontend {
	return &wasmFrontend{ev: ev, authReads: authReads(ev.Config())}
}

type wasmFrontend struct {
	ev *wasmshim.Evaluator
	// authReads are the auth.* attributes each limit reads, by limit identifier
	// (AuthAttributes).
	authReads map[string][]string
}

// evaluate runs in through wasm-shim's evaluation (GET when in has no method), writing
// its explanation to trace when there is one.
func (f *wasmFrontend) evaluate(in *policyapi.Request, trace *strings.Builder) (*wasmshim.Result, *wasmshim.Request) {
	req := in.WasmShim()
	if req.Method == "" {
		req.Method = "GET"
	}
	res := f.ev.Evaluate(&req)
	if trace != nil {
		trace.WriteString(res.Explain())
	}
	return res, &req
}

func (f *wasmFrontend) Generate(in *policyapi.Request, out *rlsmsg.Request, trace *strings.Builder) bool {
	res, _ := f.evaluate(in, trace)
	called := false
	for i := range res.Calls {
		c := &res.Calls[i]
		if c.Type != wasmshim.ServiceRateLimit {
			continue
		}
		if called {
			if trace != nil {
				fmt.Fprintf(trace, "action %d (%s, domain %s) is not evaluated: only the first rate-limit call is\n", c.Action, c.Service, c.Domain)
			}
			continue
		}
		*out = c.Request()
		if out.HitsAddend == 0 {
			out.HitsAddend = in.HitsAddend
		}
		called = true
	}
	if !called {
		*out = rlsmsg.Request{}
	}
	return called
}

// LimitNames returns, by the identifier LimitID gives it, the name a PolicyTest
// uses for each limit of the kuadrant.io/v1 RateLimitPolicies of set: "ns/policy
// limits.name", whichever of spec.limits, spec.defaults or spec.overrides holds it.
func LimitNames(set *policy.Set) map[string]string {
	out := map[string]string{}
	for _, p := range set.PoliciesV1 {
		for name := range RulesOf(p) {
			if name == WhenRule {
				continue
			}
			out[LimitID(p, name)] = p.Namespace + "/" + p.Name + " limits." + name
		}
	}
	return out
}

// limitID returns the identifier in a compiled limit's condition
// `descriptors[0]["<id>"] == "1"`, "" when it has none.
func limitID(l *limitador.Limit) string {
	for _, c := range l.Conditions {
		rest, ok := strings.CutPrefix(c, `descriptors[0]["`)
		if !ok {
			continue
		}
		if id, ok := strings.CutSuffix(rest, `"] == "1"`); ok {
			return id
		}
	}
	return ""
}
