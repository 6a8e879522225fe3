package main

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"os/signal"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/grpc"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/rls"
)

// serverEnv makes the test binary a server (see TestMain), so that
// -compare has a binary to start.
const serverEnv = "RLSLOAD_TEST_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(serverEnv) == "1" {
		os.Exit(testServer(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// testServer serves an RLS with a memory store on the address after
// "--addr" until SIGTERM.
func testServer(args []string) int {
	addr := ""
	for i := range args {
		if args[i] == "--addr" && i+1 < len(args) {
			addr = args[i+1]
		}
	}
	svc, err := rls.New([]limitador.Limit{{Namespace: "load", MaxValue: 1000000, Seconds: 3600, Variables: []string{"user"}}},
		rls.Options{Store: counter.NewMemoryStore(counter.MemoryOptions{})})
	if err != nil {
		return 1
	}
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return 1
	}
	srv := grpc.NewServer()
	rlsv3.RegisterRateLimitServiceServer(srv, svc)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	go func() { <-ctx.Done(); srv.Stop() }()
	if err := srv.Serve(lis); err != nil && !errors.Is(err, grpc.ErrServerStopped) {
		return 1
	}
	return 0
}

// TestCompare starts the test binary as two servers and checks the rounds
// interleave and the medians table has a ratio column.
func TestCompare(t *testing.T) {
	t.Setenv(serverEnv, "1")
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	args := []string{"-compare", bin + "," + bin, "-serve-args", "serve", "-rounds", "2",
		"-duration", "200ms", "-warmup", "0s", "-concurrency", "4"}
	if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("run(%v) = %d, stderr %s", args, code, stderr.String())
	}
	out := stdout.String()
	order := regexp.MustCompile(`(?m)^round (\d) +([AB])=`).FindAllStringSubmatch(out, -1)
	var got []string
	for _, m := range order {
		got = append(got, m[1]+m[2])
	}
	if want := "1A 1B 2B 2A"; strings.Join(got, " ") != want {
		t.Errorf("rounds ran in order %q, want %q:\n%s", strings.Join(got, " "), want, out)
	}
	if !regexp.MustCompile(`(?m)^decisions/s \| [\d.]+ \| [\d.]+ \| \d+\.\d\d \|`).MatchString(out) {
		t.Errorf("report lacks the decisions/s medians and ratio:\n%s", out)
	}
	if strings.Contains(out, "FAILED") {
		t.Errorf("calls failed:\n%s", out)
	}
}

func TestCompareUsage(t *testing.T) {
	for _, args := range [][]string{
		{"-compare", "a,b", "-addr", "127.0.0.1:1"},
		{"-compare", "a,b", "-pid", "1"},
		{"-compare", "a,b", "-rounds", "0"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, &stdout, &stderr); code != 2 {
			t.Errorf("run(%v) = %d, want 2", args, code)
		}
	}
}

func TestCompareServerExits(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{"-compare", "/bin/false", "-duration", "100ms"}
	if code := run(context.Background(), args, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "exited before listening") {
		t.Errorf("run(%v) = %d, stderr %q; want 1 and the server's exit", args, code, stderr.String())
	}
}

// TestRedisLocalPID finds a local redis-server's process.
func TestRedisLocalPID(t *testing.T) {
	r := redistest.Start(t)
	rc, err := newRedisClient(r.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer rc.close()
	pid, err := rc.localPID(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	comm, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if err != nil || !strings.HasPrefix(string(comm), "redis-server") {
		t.Errorf("localPID() = %d, /proc comm %q (%v); want a redis-server", pid, comm, err)
	}
}
