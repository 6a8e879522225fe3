package faultsuite

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// server is a Rate Limit Service process started by a test.
type server struct {
	name       string
	grpcAddr   string
	httpAddr   string // rlpkit serve's /metrics, cmd/ratelimit's /json
	debugAddr  string // cmd/ratelimit's debug port; empty for rlpkit serve
	log        *syncBuffer
	cmd        *exec.Cmd
	exited     chan struct{}
	conn       *grpc.ClientConn
	client     rlsv3.RateLimitServiceClient
	goroutines func(*testing.T) int // the process's live goroutines
}

var (
	rlpkitServing    = regexp.MustCompile(`msg=serving addr=(\S+) http_addr=(\S+)`)
	ratelimitServing = regexp.MustCompile(`msg=serving grpc=(\S+) http=(\S+) debug=(\S+)`)
)

// startRlpkit runs "rlpkit serve" with args (listen addresses are added)
// until the test ends.
func startRlpkit(t *testing.T, args ...string) *server {
	t.Helper()
	args = append([]string{"serve", "--addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0", "--log-level", "info"}, args...)
	cmd := exec.Command(buildCmd(t, "github.com/rlpkit/rlpkit/cmd/rlpkit"), args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	s := &server{name: "rlpkit serve"}
	m := s.start(t, cmd, rlpkitServing)
	s.grpcAddr, s.httpAddr = m[1], m[2]
	s.goroutines = func(t *testing.T) int { return metricsGoroutines(t, s.httpAddr) }
	s.dial(t)
	return s
}

// startRatelimit runs cmd/ratelimit with config as its configuration file
// and the variables of env (listen addresses and the runtime directory are
// added) until the test ends.
func startRatelimit(t *testing.T, config string, env ...string) *server {
	t.Helper()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "ratelimit", "config"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "ratelimit", "config", "fault.yaml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(buildCmd(t, "github.com/rlpkit/rlpkit/cmd/ratelimit"))
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"),
		"RUNTIME_ROOT=" + root, "RUNTIME_SUBDIRECTORY=ratelimit",
		"GRPC_HOST=127.0.0.1", "GRPC_PORT=0", "HOST=127.0.0.1", "PORT=0",
		"DEBUG_HOST=127.0.0.1", "DEBUG_PORT=0", "USE_STATSD=false", "LOG_LEVEL=info",
	}, env...)
	s := &server{name: "cmd/ratelimit"}
	m := s.start(t, cmd, ratelimitServing)
	s.grpcAddr, s.httpAddr, s.debugAddr = m[1], m[2], m[3]
	s.goroutines = func(t *testing.T) int { return pprofGoroutines(t, s.debugAddr) }
	s.dial(t)
	return s
}

// start starts cmd and waits for its "serving" line, matched by re.
func (s *server) start(t *testing.T, cmd *exec.Cmd, re *regexp.Regexp) []string {
	t.Helper()
	s.log, s.cmd, s.exited = &syncBuffer{}, cmd, make(chan struct{})
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = s.log, io.MultiWriter(s.log, pw)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = cmd.Wait()
		pw.Close()
		close(s.exited)
	}()
	t.Cleanup(func() { s.stop(t) })
	found := make(chan []string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				found <- m
				break
			}
		}
		io.Copy(io.Discard, pr) //nolint:errcheck // drain
	}()
	select {
	case m := <-found:
		return m
	case <-s.exited:
		t.Fatalf("%s exited before serving:\n%s", s.name, s.log)
	case <-time.After(60 * time.Second):
		t.Fatalf("%s did not serve within 60s:\n%s", s.name, s.log)
	}
	return nil
}

func (s *server) dial(t *testing.T) {
	t.Helper()
	conn, err := grpc.NewClient(s.grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	s.conn, s.client = conn, rlsv3.NewRateLimitServiceClient(conn)
}

// stop ends the process with SIGTERM (SIGKILL after 10 s) and fails the
// test when the race detector reported anything.
func (s *server) stop(t *testing.T) {
	if s.conn != nil {
		s.conn.Close()
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
		t.Errorf("%s did not stop within 10s of SIGTERM", s.name)
	}
	if log := s.log.String(); strings.Contains(log, "WARNING: DATA RACE") || strings.Contains(log, "panic:") {
		t.Errorf("%s reported a race or a panic:\n%s", s.name, log)
	}
}

// lines returns the process's log lines that contain every one of parts.
func (s *server) lines(parts ...string) []string {
	var out []string
	for _, l := range strings.Split(s.log.String(), "\n") {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(l, p)
		}
		if ok && l != "" {
			out = append(out, l)
		}
	}
	return out
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// sortedKeys returns m's keys in order, for stable logs.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
