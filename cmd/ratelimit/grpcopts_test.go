package main

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	rlv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
)

func oneCall(conn *grpc.ClientConn) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req := &rlsv3.RateLimitRequest{Domain: "d", Descriptors: []*rlv3.RateLimitDescriptor{{Entries: []*rlv3.RateLimitDescriptor_Entry{{Key: "k", Value: "a"}}}}}
	_, err := rlsv3.NewRateLimitServiceClient(conn).ShouldRateLimit(ctx, req)
	return err
}

func TestGRPCUnixSocket(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "ratelimit/config/a.yaml"), limitYAML(1))
	env := baseEnv(root)
	sock := filepath.Join(t.TempDir(), "rls.sock")
	env["GRPC_UDS"] = sock
	s := start(t, env)
	if s.addrs.grpc != sock {
		t.Errorf("gRPC listens on %q, want %q", s.addrs.grpc, sock)
	}
	conn, err := grpc.NewClient("unix:"+sock, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := oneCall(conn); err != nil {
		t.Errorf("call over GRPC_UDS: %v", err)
	}
}

// GRPC_MAX_CONNECTION_AGE ends connections, so that clients rebalance.
func TestGRPCMaxConnectionAge(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "ratelimit/config/a.yaml"), limitYAML(1))
	env := baseEnv(root)
	env["GRPC_MAX_CONNECTION_AGE"] = "50ms"
	env["GRPC_MAX_CONNECTION_AGE_GRACE"] = "50ms"
	s := start(t, env)
	conn, err := grpc.NewClient(s.addrs.grpc, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := oneCall(conn); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if !conn.WaitForStateChange(ctx, connectivity.Ready) {
		t.Fatal("the connection was not ended by the server")
	}
}

// GRPC_CLIENT_TLS_SAN: a client certificate of the CA that is not valid
// for the name is refused.
func TestGRPCClientSAN(t *testing.T) {
	pki := newPKI(t, t.TempDir(), "envoy-gateway")
	for _, tc := range []struct {
		san   string
		works bool
	}{{"someone-else", false}, {"envoy-gateway", true}} {
		t.Run(tc.san, func(t *testing.T) {
			root := t.TempDir()
			writeFile(t, filepath.Join(root, "ratelimit/config/a.yaml"), limitYAML(1))
			env := baseEnv(root)
			env["GRPC_SERVER_USE_TLS"] = "true"
			env["GRPC_SERVER_TLS_CERT"], env["GRPC_SERVER_TLS_KEY"] = pki.certFile, pki.key
			env["GRPC_CLIENT_TLS_CACERT"] = pki.caFile
			env["GRPC_CLIENT_TLS_SAN"] = tc.san
			s := start(t, env)
			conn, err := grpc.NewClient(s.addrs.grpc, grpc.WithTransportCredentials(credentials.NewTLS(pki.clientTLS())))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if err := oneCall(conn); (err == nil) != tc.works {
				t.Errorf("call with GRPC_CLIENT_TLS_SAN=%s: %v, want success %v", tc.san, err, tc.works)
			}
		})
	}
}
