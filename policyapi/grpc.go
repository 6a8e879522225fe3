package policyapi

import (
	"fmt"
	"regexp"
	"strings"
)

// GRPCContentType is the content-type of a gRPC call.
const GRPCContentType = "application/grpc"

// fullMethodRE is "<package.Service>/<Method>" in the characters the Gateway API admits
// for a GRPCRoute's Exact method match.
var fullMethodRE = regexp.MustCompile(`^(?i)[a-z_][a-z_0-9]*(\.[a-z_][a-z_0-9]*)*/[a-z_][a-z_0-9]*$`)

// IsGRPC reports whether r is a gRPC call: its content-type is application/grpc or
// application/grpc+<codec> (as Envoy's gRPC route match decides).
func (r *Request) IsGRPC() bool {
	for name, vs := range r.Headers {
		if !strings.EqualFold(name, "content-type") || len(vs) == 0 {
			continue
		}
		ct := strings.ToLower(vs[0])
		return ct == GRPCContentType || strings.HasPrefix(ct, GRPCContentType+"+") || strings.HasPrefix(ct, GRPCContentType+";")
	}
	return false
}

// protocol returns the request's protocol: Protocol, else HTTP/2 for a gRPC call, else ""
// (HTTP/1.1).
func (r *Request) protocol() string {
	if r.Protocol == "" && r.IsGRPC() {
		return "HTTP/2"
	}
	return r.Protocol
}

// SetGRPC makes r the gRPC call of fullMethod ("package.Service/Method", a leading "/"
// allowed) as a proxy sees it: an HTTP/2 POST to "/package.Service/Method" with
// content-type application/grpc (unless r has a gRPC content-type already) and te
// trailers. Host, the other headers and the rest of r are kept.
func (r *Request) SetGRPC(fullMethod string) error {
	m := strings.TrimPrefix(fullMethod, "/")
	if !fullMethodRE.MatchString(m) {
		return fmt.Errorf("policyapi: gRPC method %q: want <package.Service>/<Method>, such as grpcbin.GRPCBin/DummyUnary", fullMethod)
	}
	r.Method, r.Path, r.Protocol = "POST", "/"+m, "HTTP/2"
	if r.Headers == nil {
		r.Headers = map[string][]string{}
	}
	if !r.IsGRPC() {
		for name := range r.Headers {
			if strings.EqualFold(name, "content-type") {
				delete(r.Headers, name)
			}
		}
		r.Headers["content-type"] = []string{GRPCContentType}
	}
	if _, ok := r.Headers["te"]; !ok {
		r.Headers["te"] = []string{"trailers"}
	}
	return nil
}
