package rls_test

import (
	"context"
	"fmt"
	"log"
	"net"
	"time"

	rlcommon "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"

	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/rls"
)

// An Envoy Rate Limit Service: limits from a limits file, the Service
// registered on a gRPC server with its options (rlsmsg's codec), and a client calling ShouldRateLimit as
// Envoy's rate-limit filter does. The listener is in process (bufconn); a
// real server listens with net.Listen("tcp", ":8081").
func ExampleNew_grpc() {
	limits, err := limitador.DecodeLimits([]byte(`[
	  {"namespace": "toystore", "name": "admin", "max_value": 1, "seconds": 60, "conditions": ["admin == 'yes'"], "variables": []},
	  {"namespace": "toystore", "name": "per client", "max_value": 100, "seconds": 60, "conditions": [], "variables": ["remote_address"]}
	]`))
	if err != nil {
		log.Fatal(err)
	}
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	svc, err := rls.New(limits, rls.Options{
		Store: counter.NewMemoryStore(counter.MemoryOptions{}),
		Clock: func() time.Time { return now },
	})
	if err != nil {
		log.Fatal(err)
	}
	lis := bufconn.Listen(1 << 20)
	srv := grpc.NewServer(svc.ServerOptions()...)
	rls.Register(srv, svc)
	go srv.Serve(lis)
	defer srv.Stop()

	conn, err := grpc.NewClient("passthrough:///rls",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	client := rlsv3.NewRateLimitServiceClient(conn)

	entry := func(k, v string) *rlcommon.RateLimitDescriptor {
		return &rlcommon.RateLimitDescriptor{Entries: []*rlcommon.RateLimitDescriptor_Entry{{Key: k, Value: v}}}
	}
	req := &rlsv3.RateLimitRequest{Domain: "toystore", Descriptors: []*rlcommon.RateLimitDescriptor{
		entry("admin", "yes"), entry("remote_address", "192.0.2.10"),
	}}
	for range 2 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		resp, err := client.ShouldRateLimit(ctx, req)
		cancel()
		if err != nil {
			log.Fatal(err)
		}
		fmt.Print(resp.GetOverallCode(), ":")
		for _, st := range resp.GetStatuses() {
			fmt.Printf(" [%s %q %d left]", st.GetCode(), st.GetCurrentLimit().GetName(), st.GetLimitRemaining())
		}
		fmt.Println()
	}
	// The second request is over the admin limit, so nothing of it is
	// counted: the client's own budget stays at 99.

	// Output:
	// OK: [OK "admin" 0 left] [OK "per client" 99 left]
	// OVER_LIMIT: [OVER_LIMIT "admin" 0 left] [OK "per client" 99 left]
}
