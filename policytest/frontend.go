package policytest

import (
	"strings"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// Input is a request as the proxy sees it, before the rate-limit service: what every
// Frontend reads.
type Input struct {
	// Method, Scheme, Host and Path are the request's :method, scheme, :authority and :path
	// (with the query string).
	Method, Scheme, Host, Path string
	// Headers are the request headers by lower-case name.
	Headers map[string][]string
	// RemoteAddress is the client address, an IP optionally with a port.
	RemoteAddress string
	// Metadata is the request's dynamic metadata; nil means none.
	Metadata descriptor.Metadata
	// HitsAddend is the request-level cost; 0 means unset.
	HitsAddend uint32
	// Auth are the auth.* attributes an auth service would add (kuadrant.io/v1 predicates
	// and counters read them); nil means none.
	Auth map[string]any
}

// descriptorRequest is in as package descriptor reads a request.
func (in *Input) descriptorRequest() descriptor.Request {
	req := descriptor.Request{Method: in.Method, Host: in.Host, Path: in.Path, Headers: descriptor.HeaderMap(in.Headers),
		RemoteAddress: in.RemoteAddress, HitsAddend: in.HitsAddend}
	if in.Metadata != nil {
		req.DynamicMetadata = in.Metadata
	}
	return req
}

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
	req := in.descriptorRequest()
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
