package policyapi

import (
	"fmt"
	"strings"
)

// GRPCContentType is the content type a gRPC client sends.
const GRPCContentType = "application/grpc"

// SplitGRPCPath returns the service ("package.Service") and method a gRPC call's path
// names: /<service>/<method>, both non-empty, without query or fragment.
func SplitGRPCPath(path string) (service, method string, err error) {
	rest, ok := strings.CutPrefix(path, "/")
	service, method, two := strings.Cut(rest, "/")
	switch {
	case !ok || !two || service == "" || method == "" || strings.ContainsAny(method, "/?#"):
		return "", "", fmt.Errorf("path %q does not name a gRPC method: want /<package.Service>/<Method>, e.g. /echo.v1.Echo/Say", path)
	}
	return service, method, nil
}

// AsGRPC makes req a gRPC call, as a gRPC client sends one over HTTP/2: method POST,
// content-type application/grpc (a content type of that family, such as
// application/grpc+proto, is kept) and te: trailers. Its path must name the method
// (SplitGRPCPath); a content type outside gRPC's is an error.
func AsGRPC(req *Request) error {
	if _, _, err := SplitGRPCPath(req.Path); err != nil {
		return err
	}
	headers := make(map[string][]string, len(req.Headers)+2)
	for k, v := range req.Headers {
		headers[k] = v
	}
	if ct := headers["content-type"]; len(ct) > 0 {
		rest, ok := strings.CutPrefix(ct[0], GRPCContentType)
		if !ok || rest != "" && rest[0] != '+' && rest[0] != ';' {
			return fmt.Errorf("content-type %q is not gRPC's (%s)", ct[0], GRPCContentType)
		}
	} else {
		headers["content-type"] = []string{GRPCContentType}
	}
	if _, ok := headers["te"]; !ok {
		headers["te"] = []string{"trailers"}
	}
	req.Method, req.Headers = "POST", headers
	return nil
}
