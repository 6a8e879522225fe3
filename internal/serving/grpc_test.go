package serving

import (
	"context"
	"net"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
)

// startGRPC serves, over an in-memory listener, a gRPC server with h and
// reflection registered, and returns it and a connection to it.
func startGRPC(t *testing.T, h *Health) (*grpc.Server, *grpc.ClientConn) {
	t.Helper()
	lis := bufconn.Listen(1 << 16)
	srv := grpc.NewServer()
	Register(srv, h)
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	dial := func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }
	conn, err := grpc.NewClient("passthrough:///bufconn", grpc.WithContextDialer(dial), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return srv, conn
}

func checkHealth(t *testing.T, conn *grpc.ClientConn, service string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	r, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{Service: service})
	if err != nil {
		return status.Code(err).String()
	}
	return r.GetStatus().String()
}

func TestHealth(t *testing.T) {
	h := NewHealth("svc")
	_, conn := startGRPC(t, h)
	answers := func() []string {
		return []string{checkHealth(t, conn, ""), checkHealth(t, conn, "svc"), checkHealth(t, conn, "other")}
	}
	steps := []struct {
		name string
		do   func()
		want []string // "", "svc", "other"
	}{
		{"at start", func() {}, []string{"SERVING", "NotFound", "NotFound"}},
		{"Set(false)", func() { h.Set(false) }, []string{"NOT_SERVING", "NOT_SERVING", "NotFound"}},
		{"Set(true)", func() { h.Set(true) }, []string{"SERVING", "SERVING", "NotFound"}},
		{"Shutdown", h.Shutdown, []string{"NOT_SERVING", "NOT_SERVING", "NotFound"}},
		{"Set(true) after Shutdown", func() { h.Set(true) }, []string{"NOT_SERVING", "NOT_SERVING", "NotFound"}},
	}
	for _, st := range steps {
		st.do()
		if got := answers(); !slices.Equal(got, st.want) {
			t.Errorf("%s: health of \"\", svc, other = %q, want %q", st.name, got, st.want)
		}
	}
}

func TestRegister(t *testing.T) {
	srv := grpc.NewServer()
	Register(srv, NewHealth())
	var got []string
	for name := range srv.GetServiceInfo() {
		got = append(got, name)
	}
	slices.Sort(got)
	want := []string{"grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection"}
	if !slices.Equal(got, want) {
		t.Errorf("registered services %q, want %q", got, want)
	}
}

func awaitClosed(t *testing.T, c <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-c:
	case <-time.After(wait):
		t.Fatalf("%s: not closed", what)
	}
}

func TestGracefulStopIdle(t *testing.T) {
	srv, conn := startGRPC(t, NewHealth())
	if got := checkHealth(t, conn, ""); got != "SERVING" {
		t.Fatalf("health = %s, want SERVING", got)
	}
	stopped := GracefulStop(context.Background(), srv, func() { t.Error("onTimeout called without a call in flight") })
	awaitClosed(t, stopped, "GracefulStop's channel")
}

func TestGracefulStopTimeout(t *testing.T) {
	srv, conn := startGRPC(t, NewHealth())
	// A Watch stream is a call in flight until the client or the server
	// ends it.
	cctx, ccancel := context.WithCancel(context.Background())
	defer ccancel()
	watch, err := healthpb.NewHealthClient(conn).Watch(cctx, &healthpb.HealthCheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := watch.Recv(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	timeouts := 0
	returned := make(chan (<-chan struct{}), 1)
	go func() { returned <- GracefulStop(ctx, srv, func() { timeouts++ }) }()
	cancel() // the deadline, whether or not the stop has begun draining
	var stopped <-chan struct{}
	select {
	case stopped = <-returned:
	case <-time.After(wait):
		t.Fatal("GracefulStop does not return once its context is done")
	}
	awaitClosed(t, stopped, "GracefulStop's channel after Stop")
	if timeouts != 1 {
		t.Errorf("onTimeout called %d times, want 1", timeouts)
	}
	if _, err := watch.Recv(); status.Code(err) != codes.Unavailable {
		t.Errorf("the call in flight after the stop: %v, want Unavailable", err)
	}
}
