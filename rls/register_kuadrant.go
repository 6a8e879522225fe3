package rls

import (
	"context"

	"google.golang.org/grpc"
)

// KuadrantServiceName is the gRPC service of Limitador's check and report,
// as limitador-server/proto/kuadrantrls.proto names it. Its methods take
// and return envoy.service.ratelimit.v3's RateLimitRequest and
// RateLimitResponse: it has no messages of its own.
const KuadrantServiceName = "kuadrant.service.ratelimit.v1.RateLimitService"

// method is the RPC a call came in by.
type method uint8

const (
	methodShould method = iota // envoy.service.ratelimit.v3 ShouldRateLimit
	methodCheck                // kuadrant CheckRateLimit
	methodReport               // kuadrant Report
)

// String returns the method's gRPC name.
func (m method) String() string {
	switch m {
	case methodCheck:
		return "CheckRateLimit"
	case methodReport:
		return "Report"
	}
	return "ShouldRateLimit"
}

// fullName returns the method's full gRPC name, service included.
func (m method) fullName() string {
	switch m {
	case methodCheck:
		return "/" + KuadrantServiceName + "/CheckRateLimit"
	case methodReport:
		return "/" + KuadrantServiceName + "/Report"
	}
	return shouldRateLimitMethod
}

// outcome is the method as Outcome.Method names it.
func (m method) outcome() string {
	if m == methodShould {
		return ""
	}
	return m.String()
}

// kuadrantDesc is Limitador's RateLimitService on the model's path, as
// serviceDesc is Envoy's: the same call, decoded and encoded by Codec.
var kuadrantDesc = grpc.ServiceDesc{
	ServiceName: KuadrantServiceName,
	HandlerType: (*any)(nil),
	Methods: []grpc.MethodDesc{
		{MethodName: "CheckRateLimit", Handler: handleCheck},
		{MethodName: "Report", Handler: handleReport},
	},
	Metadata: kuadrantProtoFile,
}

// RegisterKuadrant registers s as kuadrant.service.ratelimit.v1.RateLimitService
// on r (CheckRateLimit and Report, see Options.CheckReport), on the
// model's path as Register does: the server must use Codec.
func RegisterKuadrant(r grpc.ServiceRegistrar, s *Service) {
	r.RegisterService(&kuadrantDesc, s)
}

func handleCheck(srv any, ctx context.Context, dec func(any) error, interceptor grpc.UnaryServerInterceptor) (any, error) {
	return handle(srv, ctx, dec, interceptor, methodCheck)
}

func handleReport(srv any, ctx context.Context, dec func(any) error, interceptor grpc.UnaryServerInterceptor) (any, error) {
	return handle(srv, ctx, dec, interceptor, methodReport)
}

// handle is the unary handler of a call by m, for every service Register and
// RegisterKuadrant serve.
func handle(srv any, ctx context.Context, dec func(any) error, interceptor grpc.UnaryServerInterceptor, m method) (any, error) {
	s := srv.(*Service)
	c := s.get()
	c.method = m
	if err := dec(c); err != nil {
		s.release(c)
		return nil, err
	}
	run := func(ctx context.Context, _ any) (any, error) {
		if err := s.decide(ctx, c); err != nil {
			s.release(c)
			return nil, err
		}
		return c, nil // Codec.Marshal encodes it, then releases it
	}
	if interceptor == nil {
		return run(ctx, c)
	}
	return interceptor(ctx, c, &grpc.UnaryServerInfo{Server: srv, FullMethod: m.fullName()}, run)
}
