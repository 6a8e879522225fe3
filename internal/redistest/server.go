package redistest

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// RequireEnv is the environment variable that turns a missing redis-server
// from a skipped test into a failed one when set to "1".
const RequireEnv = "RLPKIT_REQUIRE_REDIS"

// startTimeout bounds how long a started server may take to answer PING.
const startTimeout = 10 * time.Second

// Server is a redis-server started for a test on a free loopback port. Its
// methods are safe for concurrent use; create it with Start.
type Server struct {
	// Addr is the server's address, "127.0.0.1:port". It stays the same
	// across Restart.
	Addr string

	bin string
	dir string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd has exited
	log  *syncBuffer
}

// Start starts redis-server (from PATH) on a free 127.0.0.1 port with no
// persistence and stops it when the test ends (t.Cleanup). When
// redis-server is not on PATH it skips the test, unless RequireEnv is "1",
// then it fails it.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv(RequireEnv) == "1" {
			t.Fatalf("redistest: redis-server is not on PATH and %s=1: %v", RequireEnv, err)
		}
		t.Skipf("redistest: redis-server is not on PATH (set %s=1 to fail instead): %v", RequireEnv, err)
	}
	s := &Server{bin: bin, dir: t.TempDir()}
	t.Cleanup(s.Kill)
	// A free port found by listening may be taken by someone else before
	// redis-server binds it: try a few.
	var errs []string
	for range 5 {
		port, err := freePort()
		if err != nil {
			t.Fatalf("redistest: %v", err)
		}
		s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		if err := s.start(); err != nil {
			errs = append(errs, err.Error())
			continue
		}
		return s
	}
	t.Fatalf("redistest: cannot start redis-server:\n%s", strings.Join(errs, "\n"))
	return nil
}

// Kill stops the server with SIGKILL, as a crash would, and waits for it to
// exit. Its data is lost. Killing a stopped server does nothing.
func (s *Server) Kill() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.killLocked()
}

// Restart starts the server again on the same address, with no data. A
// running server is killed first. It fails the test when the server cannot
// start.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	s.Kill()
	var err error
	for range 20 { // the port may take a moment to be free again
		if err = s.start(); err == nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("redistest: restart on %s: %v", s.Addr, err)
}

// URL returns the server's address as a Redis URL, "redis://127.0.0.1:port".
func (s *Server) URL() string { return "redis://" + s.Addr }

// Log returns what the server has logged since it last started.
func (s *Server) Log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.log == nil {
		return ""
	}
	return s.log.String()
}

// start runs redis-server on s.Addr and waits until it answers PING.
func (s *Server) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, port, _ := net.SplitHostPort(s.Addr)
	cmd := exec.Command(s.bin,
		"--bind", "127.0.0.1",
		"--port", port,
		"--save", "",
		"--appendonly", "no",
		"--dir", s.dir,
		"--daemonize", "no",
		"--loglevel", "warning",
		"--logfile", "",
	)
	log := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", s.bin, err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	s.cmd, s.done, s.log = cmd, done, log
	if err := waitReady(s.Addr, done); err != nil {
		s.killLocked()
		return fmt.Errorf("redis-server on %s: %w; log:\n%s", s.Addr, err, log.String())
	}
	return nil
}

func (s *Server) killLocked() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	<-s.done
	s.cmd, s.done = nil, nil
}

// waitReady polls addr with PING until it answers PONG, the process exits
// or startTimeout passes.
func waitReady(addr string, exited <-chan struct{}) error {
	deadline := time.Now().Add(startTimeout)
	var last error
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return fmt.Errorf("exited before answering PING")
		default:
		}
		if last = ping(addr); last == nil {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return fmt.Errorf("no PONG within %v: %v", startTimeout, last)
}

// ping sends PING over a fresh connection and expects +PONG.
func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if line != "+PONG\r\n" {
		return fmt.Errorf("PING answered %q", line)
	}
	return nil
}

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// syncBuffer is a bytes.Buffer safe for concurrent writes and reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
