package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/rls"
	"github.com/rlpkit/rlpkit/yamljson"
)

// module is rlpkit-filter.wasm, built by TestMain exactly as the README says.
var module []byte

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "rlpkit-filter")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out := filepath.Join(dir, "rlpkit-filter.wasm")
	if err := buildWasm(out, "."); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	module, err = os.ReadFile(out)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// buildWasm builds the package in dir as a proxy-wasm reactor module.
func buildWasm(out, dir string) error {
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-buildmode=c-shared", "-ldflags=-s -w", "-o", out, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "GOFLAGS=")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared in %s: %v\n%s", dir, err, b)
	}
	return nil
}

// t0 is the fixed instant the rate-limit services decide at, so that no window ends during
// a test.
var t0 = time.Date(2024, 1, 1, 12, 0, 15, 0, time.UTC)

// startRLS serves package rls over limits, in memory, on a loopback port and returns a
// connection to it. It is the only use of the server packages in these tests.
func startRLS(t testing.TB, limits []limitador.Limit) *grpc.ClientConn {
	t.Helper()
	svc, err := rls.New(limits, rls.Options{
		Store:           counter.NewMemoryStore(counter.MemoryOptions{}),
		Clock:           func() time.Time { return t0 },
		ResponseHeaders: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	return serve(t, svc)
}

// serve serves an RLS implementation on a loopback port and returns a connection to it.
func serve(t testing.TB, svc rlsv3.RateLimitServiceServer) *grpc.ClientConn {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	rlsv3.RegisterRateLimitServiceServer(srv, svc)
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	return dial(t, lis.Addr().String())
}

func dial(t testing.TB, addr string) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// fakeRLS answers every call with fn.
type fakeRLS struct {
	rlsv3.UnimplementedRateLimitServiceServer
	fn func(context.Context, *rlsv3.RateLimitRequest) (*rlsv3.RateLimitResponse, error)
}

func (f *fakeRLS) ShouldRateLimit(ctx context.Context, req *rlsv3.RateLimitRequest) (*rlsv3.RateLimitResponse, error) {
	return f.fn(ctx, req)
}

// withTimeout sets the timeout of a PluginConfig in JSON to 10s: the default 100ms is
// Envoy-like, but a loaded CI machine under the race detector can exceed it, and a call that
// times out would test the failure mode instead of what a test means to test.
func withTimeout(t testing.TB, cfg []byte) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(cfg, &m); err != nil {
		t.Fatal(err)
	}
	if _, legacy := m["ratelimitpolicies"]; legacy {
		return cfg // the older schema has no timeout
	}
	m["timeout"] = "10s"
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// toystore is the toystore example as `rlpkit compile` prints it: the Gateway's
// PluginConfig as JSON and its limits.
func toystore(t testing.TB) (pluginConfig []byte, limits []limitador.Limit) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "toystore", "compiled.yaml.golden"))
	if err != nil {
		t.Fatal(err)
	}
	js, err := yamljson.ToJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Gateways []struct {
			PluginConfig json.RawMessage   `json:"pluginConfig"`
			Limits       []limitador.Limit `json:"limits"`
		} `json:"gateways"`
	}
	if err := json.Unmarshal(js, &out); err != nil || len(out.Gateways) != 1 {
		t.Fatalf("compiled.yaml.golden: %v (%d gateways)", err, len(out.Gateways))
	}
	return out.Gateways[0].PluginConfig, out.Gateways[0].Limits
}
