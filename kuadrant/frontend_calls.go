package kuadrant

import (
	"fmt"
	"strings"

	"github.com/rlpkit/rlpkit/policyapi"
	"github.com/rlpkit/rlpkit/wasmshim"
)

// wasmFilter names wasm-shim's calls in a trace: one filter makes them all.
const wasmFilter = "wasm-shim"

var _ policyapi.CallsFrontend = (*wasmFrontend)(nil)

// Calls returns wasm-shim's calls for in, in action order: the first rate-limit call (as
// Generate), and a TokenRateLimitPolicy's checks (Limitador's CheckRateLimit) at the
// request; its reports (Limitador's Report) once the response is done, only when in has
// a Response whose body gives the usage (as in wasm-shim, a body without it, or not JSON,
// makes no report), their hits read from it. A Response with Tokens and no body stands
// for an OpenAI-style body {"usage": {"total_tokens": N}}, what the operator's report
// reads (TokenReportHits).
func (f *wasmFrontend) Calls(in *policyapi.Request, trace *strings.Builder) (calls, done []policyapi.Call) {
	res, req := f.evaluate(in, trace)
	limited := false
	for i := range res.Calls {
		c := &res.Calls[i]
		switch c.Type {
		case wasmshim.ServiceRateLimit:
			if limited {
				if trace != nil {
					fmt.Fprintf(trace, "action %d (%s, domain %s) is not evaluated: only the first rate-limit call is\n", c.Action, c.Service, c.Domain)
				}
				continue
			}
			limited = true
			r := c.Request()
			if r.HitsAddend == 0 {
				r.HitsAddend = in.HitsAddend
			}
			calls = append(calls, policyapi.Call{Filter: wasmFilter, Request: r})
		case wasmshim.ServiceRateLimitCheck:
			calls = append(calls, policyapi.Call{Filter: wasmFilter, Request: c.Request(), Kind: policyapi.CallCheck})
		}
	}
	if in.Response == nil {
		if trace != nil && hasType(res, wasmshim.ServiceRateLimitReport) {
			trace.WriteString("no response is given: the report calls are not made\n")
		}
		return calls, nil
	}
	req.ResponseBody = in.Response.Body
	if req.ResponseBody == nil && in.Response.Tokens != nil {
		req.ResponseBody = fmt.Appendf(nil, `{"usage":{"total_tokens":%d}}`, *in.Response.Tokens)
	}
	after := f.ev.Evaluate(req)
	for i := range after.Calls {
		c := &after.Calls[i]
		if c.Type != wasmshim.ServiceRateLimitReport {
			continue
		}
		if !c.HitsAddendRead {
			if trace != nil {
				fmt.Fprintf(trace, "action %d (%s, domain %s): the response gives no usage: no report, the counter is unchanged\n", c.Action, c.Service, c.Domain)
			}
			continue
		}
		done = append(done, policyapi.Call{Filter: wasmFilter, Request: c.Request(), Kind: policyapi.CallReport})
	}
	return calls, done
}

// hasType reports whether res calls a service of type typ.
func hasType(res *wasmshim.Result, typ string) bool {
	for i := range res.Calls {
		if res.Calls[i].Type == typ {
			return true
		}
	}
	return false
}
