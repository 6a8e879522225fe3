package rls

import (
	"context"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/grpc"
)

// shouldRateLimitMethod is the full gRPC method name of ShouldRateLimit.
const shouldRateLimitMethod = "/envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit"

// serviceDesc is RateLimitService with a handler that decodes into the
// model: its messages are calls, which only Codec encodes and decodes.
var serviceDesc = grpc.ServiceDesc{
	ServiceName: rlsv3.RateLimitService_ServiceDesc.ServiceName,
	HandlerType: (*rlsv3.RateLimitServiceServer)(nil),
	Methods:     []grpc.MethodDesc{{MethodName: "ShouldRateLimit", Handler: handleShouldRateLimit}},
	Metadata:    rlsv3.RateLimitService_ServiceDesc.Metadata,
}

// Register registers s as envoy.service.ratelimit.v3.RateLimitService on
// r, on the model's path: requests are decoded by rlsmsg straight into the
// model and responses encoded from it, with no go-control-plane message in
// between. The server must use Codec (Service.ServerOptions installs it); a call
// reaching another codec fails with Internal. Interceptors see the calls
// as opaque values, not go-control-plane messages. A call's memory is
// pooled: it goes back to the Service once Codec has encoded its response,
// so a gRPC stats handler must not keep the response payload it is shown.
func Register(r grpc.ServiceRegistrar, s *Service) {
	r.RegisterService(&serviceDesc, s)
}

// handleShouldRateLimit is the unary handler of Register's service.
func handleShouldRateLimit(srv any, ctx context.Context, dec func(any) error, interceptor grpc.UnaryServerInterceptor) (any, error) {
	return handle(srv, ctx, dec, interceptor, methodShould)
}
