package serving

import (
	"context"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"
)

// Health is a server's gRPC health service (grpc.health.v1.Health). It
// answers for the server as a whole (service "") and for the services named
// at NewHealth, all with one status.
type Health struct {
	srv      *health.Server
	services []string
}

// NewHealth returns the health service of a server offering the named
// services. Until the first Set, the server as a whole answers SERVING and
// the named services are unknown (NOT_FOUND), as grpc-go's health server
// starts.
func NewHealth(services ...string) *Health {
	return &Health{srv: health.NewServer(), services: services}
}

// Set reports the server as a whole, then each named service, serving or
// not serving.
func (h *Health) Set(serving bool) {
	status := healthpb.HealthCheckResponse_NOT_SERVING
	if serving {
		status = healthpb.HealthCheckResponse_SERVING
	}
	h.srv.SetServingStatus("", status)
	for _, s := range h.services {
		h.srv.SetServingStatus(s, status)
	}
}

// Shutdown reports every service NOT_SERVING from now on, whatever Set says
// later: clients then move away before the server stops.
func (h *Health) Shutdown() { h.srv.Shutdown() }

// Register registers the health service h and gRPC server reflection on srv.
func Register(srv *grpc.Server, h *Health) {
	healthpb.RegisterHealthServer(srv, h.srv)
	reflection.Register(srv)
}

// GracefulStop stops srv gracefully: it stops accepting connections and
// calls, and waits for the calls in flight to finish, until ctx is done.
// Then it calls onTimeout, when not nil, and srv.Stop, which closes the
// connections left and cancels their calls. It returns once the calls have
// finished or Stop has been called; the channel it returns is closed when
// srv's GracefulStop returns, which after a Stop is when the handlers of the
// cancelled calls have returned too.
func GracefulStop(ctx context.Context, srv *grpc.Server, onTimeout func()) <-chan struct{} {
	stopped := make(chan struct{})
	go func() { srv.GracefulStop(); close(stopped) }()
	select {
	case <-stopped:
	case <-ctx.Done():
		if onTimeout != nil {
			onTimeout()
		}
		srv.Stop()
	}
	return stopped
}
