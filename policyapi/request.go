package policyapi

import (
	"encoding/json"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/envoyroute"
	"github.com/rlpkit/rlpkit/wasmshim"
)

// Request is an HTTP request as every evaluation path (rlpkit descriptors, test,
// simulate) gives it to a policy API's data plane; the conversions below give each
// emulated proxy its view of it. Package descriptor keeps its own type, which the
// proxy-wasm filter builds without this package.
type Request struct {
	// Method, Scheme, Host and Path are the request's :method, scheme ("" for http),
	// :authority (possibly with a port) and :path (with the query string).
	Method, Scheme, Host, Path string
	// Protocol is the request's protocol as Envoy names it ("HTTP/1.1", "HTTP/2"); empty
	// means HTTP/2 for a gRPC call (IsGRPC) and HTTP/1.1 otherwise.
	Protocol string
	// Headers are the request headers by lower-case name, values in order.
	Headers map[string][]string
	// RemoteAddress is the client address, an IP optionally with a port.
	RemoteAddress string
	// Metadata is the request's dynamic metadata (namespace -> struct); nil means none.
	Metadata descriptor.Metadata
	// HitsAddend is the request-level cost the proxy already knows; 0 means unset.
	HitsAddend uint32
	// Auth are the auth.* attributes an auth service would add (kuadrant.io/v1 predicates
	// and counters read them); nil means none.
	Auth map[string]any
	// Response is what the response tells the proxy, for the calls it makes once the
	// response is done (a TokenRateLimitPolicy's report); nil means none is given, and
	// such calls are not made.
	Response *Response
}

// Response is the part of a response a data plane reads after it: its body, or the usage
// it reports when the body is not given.
type Response struct {
	// Body is the response body (JSON), as expressions such as wasm-shim's
	// responseBodyJSON read it.
	Body []byte
	// Tokens is the total tokens the response reports, for an API that reads usage from a
	// body in a known shape (Kuadrant: OpenAI's usage.total_tokens; Envoy AI Gateway: the
	// token metadata it writes); used when Body is nil.
	Tokens *uint64
	// Status is the response's HTTP status; 0 means 200. Envoy AI Gateway writes its
	// token metadata only at the end of a 2xx response; wasm-shim's report reads the body
	// whatever the status.
	Status int
}

// TotalTokens returns the total tokens the response reports: Tokens, or with a body its
// OpenAI-style usage.total_tokens (as Envoy AI Gateway reads it); nil when none.
func (r *Response) TotalTokens() *uint64 {
	if r.Body == nil {
		return r.Tokens
	}
	var v struct {
		Usage *struct {
			TotalTokens *uint64 `json:"total_tokens"`
		} `json:"usage"`
	}
	if json.Unmarshal(r.Body, &v) != nil || v.Usage == nil {
		return nil
	}
	return v.Usage.TotalTokens
}

// StatusCode returns the response's HTTP status, 200 when unset.
func (r *Response) StatusCode() int {
	if r.Status == 0 {
		return 200
	}
	return r.Status
}

// Descriptor returns the request as package descriptor (a PluginConfig's filter) reads it.
func (r *Request) Descriptor() descriptor.Request {
	req := descriptor.Request{Method: r.Method, Host: r.Host, Path: r.Path, Headers: descriptor.HeaderMap(r.Headers),
		RemoteAddress: r.RemoteAddress, HitsAddend: r.HitsAddend}
	if r.Metadata != nil {
		req.DynamicMetadata = r.Metadata
	}
	return req
}

// WasmShim returns the request as wasm-shim (package wasmshim) reads it.
func (r *Request) WasmShim() wasmshim.Request {
	return wasmshim.Request{Method: r.Method, Scheme: r.Scheme, Host: r.Host, Path: r.Path, Protocol: r.protocol(), Headers: r.Headers,
		SourceAddress: r.RemoteAddress, Auth: r.Auth}
}

// EnvoyRoute returns the request as Envoy's route and rate-limit actions (package
// envoyroute) read it.
func (r *Request) EnvoyRoute() envoyroute.Request {
	req := envoyroute.Request{Method: r.Method, Scheme: r.Scheme, Authority: r.Host, Path: r.Path, Headers: r.Headers,
		RemoteAddress: r.RemoteAddress, HitsAddend: r.HitsAddend}
	if r.Metadata != nil {
		req.Metadata = r.Metadata
	}
	if resp := r.Response; resp != nil {
		req.Response = &envoyroute.Response{Status: resp.Status, Tokens: resp.TotalTokens()}
	}
	return req
}
