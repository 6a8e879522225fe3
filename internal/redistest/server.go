package redistest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
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

	bin     string
	dir     string
	cluster bool
	durable bool
	member  bool     // a node of a multi-node cluster: its nodes.conf survives Restart
	extra   []string // further redis-server arguments

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
	return start(t, false, false)
}

// StartCluster is Start for a one-node Redis Cluster holding all 16,384
// slots, so that cluster clients and their slot rules can be tested. Kill,
// Restart, Pause and Resume work as for Start; Restart assigns the slots
// again.
func StartCluster(t testing.TB) *Server {
	t.Helper()
	return start(t, true, false)
}

// StartDurable is Start with an append-only file synced on every write
// (appendfsync always), so that the data survives Kill: Restart brings the
// server back with every write it acknowledged, as a crashed production
// Redis with persistence comes back. For tests that count across a crash.
func StartDurable(t testing.TB) *Server {
	t.Helper()
	return start(t, false, true)
}

func start(t testing.TB, cluster, durable bool) *Server {
	t.Helper()
	s := &Server{bin: lookBin(t), dir: t.TempDir(), cluster: cluster, durable: durable}
	t.Cleanup(s.Kill)
	if err := s.startOnFreePort(); err != nil {
		t.Fatal(err)
	}
	return s
}

// lookBin returns the path of redis-server, or skips the test (fails it
// when RequireEnv is "1") when it is not on PATH.
func lookBin(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv(RequireEnv) == "1" {
			t.Fatalf("redistest: redis-server is not on PATH and %s=1: %v", RequireEnv, err)
		}
		t.Skipf("redistest: redis-server is not on PATH (set %s=1 to fail instead): %v", RequireEnv, err)
	}
	return bin
}

// startOnFreePort starts s on a free loopback port and sets s.Addr. A free
// port found by listening may be taken by someone else before redis-server
// binds it: it tries a few.
func (s *Server) startOnFreePort() error {
	var errs []string
	for range 5 {
		port, err := freePort()
		if err != nil {
			return fmt.Errorf("redistest: %v", err)
		}
		s.Addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		if err := s.start(); err != nil {
			errs = append(errs, err.Error())
			continue
		}
		return nil
	}
	return fmt.Errorf("redistest: cannot start redis-server:\n%s", strings.Join(errs, "\n"))
}

// Kill stops the server with SIGKILL, as a crash would, and waits for it to
// exit. Its data is lost. Killing a stopped server does nothing.
func (s *Server) Kill() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.killLocked()
}

// Restart starts the server again on the same address, with no data (with
// the data of every acknowledged write for StartDurable). A running server
// is killed first. It fails the test when the server cannot
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
	return s.startArgs(nil)
}

// startArgs is start with args as redis-server's whole command line when
// not nil (a sentinel's configuration file and --sentinel).
func (s *Server) startArgs(args []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if args == nil {
		args = s.args()
	}
	if err := s.prepare(); err != nil {
		return err
	}
	cmd := exec.Command(s.bin, args...)
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
	err := waitReady(s.Addr, done)
	if err == nil && s.cluster {
		err = assignSlots(s.Addr, done)
	}
	if err != nil {
		s.killLocked()
		return fmt.Errorf("redis-server on %s: %w; log:\n%s", s.Addr, err, log.String())
	}
	return nil
}

// args is redis-server's command line for s.
func (s *Server) args() []string {
	_, port, _ := net.SplitHostPort(s.Addr)
	args := []string{
		"--bind", "127.0.0.1",
		"--port", port,
		"--save", "",
		"--appendonly", "no",
		"--dir", s.dir,
		"--daemonize", "no",
		"--loglevel", "warning",
		"--logfile", "",
	}
	if s.durable {
		args = append(args, "--appendonly", "yes", "--appendfsync", "always")
	}
	if s.member {
		// The node's identity and view of the cluster survive a restart, so
		// that it rejoins the cluster it left, as a crashed node does.
		args = append(args, "--cluster-enabled", "yes", "--cluster-config-file", "nodes-"+port+".conf")
	}
	args = append(args, s.extra...)
	if s.cluster {
		// A fresh node each time: no cluster state survives a restart.
		conf := "nodes-" + port + ".conf"
		args = append(args, "--cluster-enabled", "yes", "--cluster-config-file", conf)
	}
	return args
}

// prepare removes the cluster state of a one-node cluster, which starts
// fresh each time.
func (s *Server) prepare() error {
	if !s.cluster {
		return nil
	}
	_, port, _ := net.SplitHostPort(s.Addr)
	if err := os.Remove(filepath.Join(s.dir, "nodes-"+port+".conf")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
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

// assignSlots gives every slot to the node at addr and waits until the
// cluster says it is ok.
func assignSlots(addr string, exited <-chan struct{}) error {
	if line, err := inline(addr, "CLUSTER ADDSLOTSRANGE 0 16383"); err != nil || line != "+OK" {
		return fmt.Errorf("CLUSTER ADDSLOTSRANGE answered %q: %v", line, err)
	}
	deadline := time.Now().Add(startTimeout)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return fmt.Errorf("exited while assigning slots")
		default:
		}
		// CLUSTER INFO is a bulk string; its first line is cluster_state.
		if line, err := inlineBulk(addr, "CLUSTER INFO"); err == nil && line == "cluster_state:ok" {
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return fmt.Errorf("cluster_state not ok within %v", startTimeout)
}

// ping sends PING over a fresh connection and expects +PONG.
func ping(addr string) error {
	line, err := inline(addr, "PING")
	if err != nil {
		return err
	}
	if line != "+PONG" {
		return fmt.Errorf("PING answered %q", line)
	}
	return nil
}

// inline sends an inline command over a fresh connection and returns the
// first line of the reply, without its CRLF.
func inline(addr, command string) (string, error) {
	lines, err := inlineLines(addr, command, 1)
	if err != nil {
		return "", err
	}
	return lines[0], nil
}

// inlineBulk is inline for a command answering a bulk string: it returns
// the first line of the string.
func inlineBulk(addr, command string) (string, error) {
	lines, err := inlineLines(addr, command, 2)
	if err != nil {
		return "", err
	}
	return lines[1], nil
}

func inlineLines(addr, command string, n int) ([]string, error) {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte(command + "\r\n")); err != nil {
		return nil, err
	}
	r := bufio.NewReader(c)
	var lines []string
	for range n {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		lines = append(lines, strings.TrimSuffix(line, "\r\n"))
	}
	return lines, nil
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
