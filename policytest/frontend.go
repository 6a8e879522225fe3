package policytest

import (
	"strings"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/policyapi"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// Input is a request a test case or a log line gives: the contract's request model.
type Input = policyapi.Request

// Frontend is what a proxy does with a request before the rate-limit service: it builds
// the rate-limit request, or decides not to call the service. Each input rlpkit compiles has
// one: a PluginConfig's descriptor engine (EngineFrontend), wasm-shim's evaluation of a
// Kuadrant configuration (WasmFrontend). A Target pairs a Frontend with the limits of the
// service, so another input needs only its Frontend and its limits. A Frontend may reuse
// memory between calls, so it, and a Target holding it, is for one goroutine at a time.
type Frontend interface {
	// Generate writes into out the rate-limit request the proxy sends for in and reports
	// whether it calls the service. With trace not nil, it writes there, one a line, why.
	// out's memory may be reused by the next call.
	Generate(in *Input, out *rlsmsg.Request, trace *strings.Builder) bool
}

// EngineFrontend returns the Frontend of a PluginConfig's descriptor engine.
func EngineFrontend(engine *descriptor.Engine) Frontend { return &engineFrontend{engine: engine} }

type engineFrontend struct {
	engine *descriptor.Engine
	res    descriptor.Result
}

func (f *engineFrontend) Generate(in *Input, out *rlsmsg.Request, trace *strings.Builder) bool {
	req := in.Descriptor()
	res := &f.res
	if trace != nil {
		var tr *descriptor.Trace
		res, tr = f.engine.Explain(&req)
		trace.WriteString(tr.String())
	} else {
		f.engine.GenerateInto(&req, res)
	}
	*out = res.Request
	return res.ShouldCall()
}
