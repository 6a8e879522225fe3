package main

import (
	"io"
	"strings"
	"syscall"
	"testing"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// TestServeSignal sends this process SIGTERM and SIGINT while serve runs as
// "rlpkit serve" does: it stops gracefully and exits 0. serve has the signals
// registered from before it reports ready until it returns, so the signal
// never reaches the test binary itself.
func TestServeSignal(t *testing.T) {
	file := writeFile(t, t.TempDir(), "limits.yaml", e2eLimits)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			log := &lockedBuffer{}
			exit := make(chan int, 1)
			ready := make(chan string, 1)
			go func() {
				exit <- serveUntilSignal([]string{"--addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0", "--limits", file}, io.Discard, log, func(addr, _ string) { ready <- addr })
			}()
			var addr string
			select {
			case addr = <-ready:
			case code := <-exit:
				t.Fatalf("serve exited %d before serving:\n%s", code, log)
			}
			conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			s := &testServer{client: rlsv3.NewRateLimitServiceClient(conn), log: log}
			s.mustCall(t, rlsRequest("shop", 0, rlsDesc("ip", "x")))
			if err := syscall.Kill(syscall.Getpid(), sig); err != nil {
				t.Fatal(err)
			}
			if code := <-exit; code != exitOK {
				t.Errorf("serve after %v exited %d, want 0:\n%s", sig, code, log)
			}
			if !strings.Contains(log.String(), "msg=stopped") {
				t.Errorf("log lacks msg=stopped:\n%s", log)
			}
		})
	}
}
