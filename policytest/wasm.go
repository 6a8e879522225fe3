package policytest

import (
	"fmt"
	"strings"

	"github.com/rlpkit/rlpkit/rlsmsg"
	"github.com/rlpkit/rlpkit/wasmshim"
)

// WasmFrontend returns the Frontend of a wasm-shim configuration (kuadrant.io/v1
// RateLimitPolicies compiled by package kuadrant): the rate-limit request is the one of the
// first action of the applying action set that calls a rate-limit service; the others are
// named in the trace.
func WasmFrontend(ev *wasmshim.Evaluator) Frontend { return &wasmFrontend{ev: ev} }

type wasmFrontend struct{ ev *wasmshim.Evaluator }

func (f *wasmFrontend) Generate(in *Input, out *rlsmsg.Request, trace *strings.Builder) bool {
	req := in.WasmShim()
	if req.Method == "" {
		req.Method = "GET"
	}
	res := f.ev.Evaluate(&req)
	if trace != nil {
		trace.WriteString(res.Explain())
	}
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
