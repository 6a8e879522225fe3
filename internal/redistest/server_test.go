package redistest

import (
	"bufio"
	"fmt"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// do sends one command over a fresh connection and returns the first line
// of the reply.
func do(addr string, timeout time.Duration, args ...string) (string, error) {
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(timeout))
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := c.Write([]byte(b.String())); err != nil {
		return "", err
	}
	r := bufio.NewReader(c)
	line, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimSuffix(line, "\r\n")
	switch {
	case strings.HasPrefix(line, "$") && line != "$-1":
		line, err = r.ReadString('\n')
		return strings.TrimSuffix(line, "\r\n"), err
	case strings.HasPrefix(line, "*"):
		// An array of bulk strings: its elements joined by spaces.
		var n int
		if _, err := fmt.Sscanf(line, "*%d", &n); err != nil {
			return "", err
		}
		elems := make([]string, 0, n)
		for range 2 * n {
			l, err := r.ReadString('\n')
			if err != nil {
				return "", err
			}
			if !strings.HasPrefix(l, "$") {
				elems = append(elems, strings.TrimSuffix(l, "\r\n"))
			}
		}
		return strings.Join(elems, " "), nil
	}
	return line, nil
}

func mustDo(t *testing.T, addr string, args ...string) string {
	t.Helper()
	got, err := do(addr, 5*time.Second, args...)
	if err != nil {
		t.Fatalf("%v on %s: %v", args, addr, err)
	}
	return got
}

func TestServerLifecycle(t *testing.T) {
	s := Start(t)
	if !strings.HasPrefix(s.Addr, "127.0.0.1:") {
		t.Fatalf("Addr = %q, want 127.0.0.1:port", s.Addr)
	}
	if got, want := s.URL(), "redis://"+s.Addr; got != want {
		t.Errorf("URL() = %q, want %q", got, want)
	}
	if got := mustDo(t, s.Addr, "SET", "k", "v"); got != "+OK" {
		t.Fatalf("SET = %q, want +OK", got)
	}
	if got := mustDo(t, s.Addr, "GET", "k"); got != "v" {
		t.Fatalf("GET = %q, want v", got)
	}
	// No persistence: nothing is saved or appended.
	for _, tc := range []struct{ param, want string }{
		{"appendonly", "appendonly no"},
		{"save", "save "},
		{"bind", "bind 127.0.0.1"},
	} {
		if got := mustDo(t, s.Addr, "CONFIG", "GET", tc.param); got != tc.want {
			t.Errorf("CONFIG GET %s = %q, want %q", tc.param, got, tc.want)
		}
	}

	s.Kill()
	if _, err := do(s.Addr, time.Second, "PING"); err == nil {
		t.Fatal("PING after Kill succeeded, want an error")
	}
	s.Kill() // killing a stopped server does nothing

	addr := s.Addr
	s.Restart(t)
	if s.Addr != addr {
		t.Fatalf("Restart moved the server from %s to %s", addr, s.Addr)
	}
	if got := mustDo(t, s.Addr, "GET", "k"); got != "$-1" {
		t.Fatalf("GET after Restart = %q, want $-1 (no data survives)", got)
	}
	s.Restart(t) // restarting a running server kills it first
	if got := mustDo(t, s.Addr, "PING"); got != "+PONG" {
		t.Fatalf("PING after second Restart = %q, want +PONG", got)
	}
}

func TestDurableSurvivesKill(t *testing.T) {
	s := StartDurable(t)
	if got := mustDo(t, s.Addr, "CONFIG", "GET", "appendfsync"); got != "appendfsync always" {
		t.Fatalf("CONFIG GET appendfsync = %q, want always", got)
	}
	if got := mustDo(t, s.Addr, "INCRBY", "k", "3"); got != ":3" {
		t.Fatalf("INCRBY = %q, want :3", got)
	}
	s.Kill()
	s.Restart(t)
	if got := mustDo(t, s.Addr, "GET", "k"); got != "3" {
		t.Fatalf("GET after Kill and Restart = %q, want 3 (an acknowledged write survives)", got)
	}
}

func TestServerPause(t *testing.T) {
	s := Start(t)
	s.Pause(t)
	if got, err := do(s.Addr, 200*time.Millisecond, "PING"); err == nil {
		t.Fatalf("PING to a paused server = %q, want a timeout", got)
	}
	s.Resume(t)
	if got := mustDo(t, s.Addr, "PING"); got != "+PONG" {
		t.Fatalf("PING after Resume = %q, want +PONG", got)
	}
	s.Pause(t) // the cleanup kills a paused server
}

func TestServersAreSeparate(t *testing.T) {
	a, b := Start(t), Start(t)
	if a.Addr == b.Addr {
		t.Fatalf("two servers on one address %s", a.Addr)
	}
	mustDo(t, a.Addr, "SET", "k", "a")
	if got := mustDo(t, b.Addr, "GET", "k"); got != "$-1" {
		t.Fatalf("GET on the second server = %q, want $-1", got)
	}
}

// fakeTB records how Start ends a test; Fatalf and Skipf end the calling
// goroutine as the testing package does.
type fakeTB struct {
	testing.TB
	mu      sync.Mutex
	fatal   string
	skipped string
}

func (f *fakeTB) Helper()         {}
func (f *fakeTB) Cleanup(func())  {}
func (f *fakeTB) TempDir() string { return f.TB.TempDir() }
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.mu.Lock()
	f.fatal = fmt.Sprintf(format, args...)
	f.mu.Unlock()
	runtime.Goexit()
}
func (f *fakeTB) Skipf(format string, args ...any) {
	f.mu.Lock()
	f.skipped = fmt.Sprintf(format, args...)
	f.mu.Unlock()
	runtime.Goexit()
}

func TestStartWithoutRedisServer(t *testing.T) {
	tests := []struct {
		name        string
		require     string
		wantFatal   bool
		wantSkipped bool
	}{
		{name: "not required skips", require: "", wantSkipped: true},
		{name: "required fails", require: "1", wantFatal: true},
		{name: "other value skips", require: "0", wantSkipped: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("PATH", t.TempDir())
			t.Setenv(RequireEnv, tc.require)
			f := &fakeTB{TB: t}
			done := make(chan struct{})
			go func() {
				defer close(done)
				Start(f)
				t.Error("Start returned a server without redis-server on PATH")
			}()
			<-done
			if got := f.fatal != ""; got != tc.wantFatal {
				t.Errorf("Start with %s=%q: failed = %v (%q), want %v", RequireEnv, tc.require, got, f.fatal, tc.wantFatal)
			}
			if got := f.skipped != ""; got != tc.wantSkipped {
				t.Errorf("Start with %s=%q: skipped = %v (%q), want %v", RequireEnv, tc.require, got, f.skipped, tc.wantSkipped)
			}
		})
	}
}

func TestCluster(t *testing.T) {
	s := StartCluster(t)
	check := func() {
		t.Helper()
		info, err := inlineBulk(s.Addr, "CLUSTER INFO")
		if err != nil || info != "cluster_state:ok" {
			t.Fatalf("CLUSTER INFO = %q, %v, want cluster_state:ok", info, err)
		}
		if got := mustDo(t, s.Addr, "CONFIG", "GET", "cluster-enabled"); got != "cluster-enabled yes" {
			t.Fatalf("CONFIG GET cluster-enabled = %q, want yes", got)
		}
	}
	check()
	if got := mustDo(t, s.Addr, "SET", "{a}k", "v"); got != "+OK" {
		t.Fatalf("SET {a}k = %q, want +OK", got)
	}
	// Keys of two slots in one command are refused, as in any cluster.
	if got := mustDo(t, s.Addr, "MGET", "{a}k", "{b}k"); !strings.HasPrefix(got, "-CROSSSLOT") {
		t.Fatalf("MGET across slots = %q, want -CROSSSLOT", got)
	}
	s.Restart(t)
	check()
	if got := mustDo(t, s.Addr, "GET", "{a}k"); got != "$-1" {
		t.Fatalf("GET after Restart = %q, want $-1 (no data survives)", got)
	}
}
