package main

import (
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/internal/redistest"
)

// startSentinel runs a Redis Sentinel on a free loopback port monitoring
// master as "mymaster", with the extra configuration lines given, and
// returns its address.
func startSentinel(t *testing.T, master *redistest.Server, extra ...string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, port, _ := net.SplitHostPort(addr)
	host, mport, _ := net.SplitHostPort(master.Addr)
	conf := filepath.Join(t.TempDir(), "sentinel.conf")
	writeFile(t, conf, fmt.Sprintf("port %s\nbind 127.0.0.1\nsentinel monitor mymaster %s %s 1\n", port, host, mport)+strings.Join(extra, "\n")+"\n")
	cmd := exec.Command("redis-server", conf, "--sentinel")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("sentinel on %s did not start: %v", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestRedisSentinel(t *testing.T) {
	master := redistest.Start(t)
	sentinel := startSentinel(t, master)
	env := redisEnv(t, master, "sentinel")
	env["REDIS_URL"] = "mymaster," + sentinel
	s := start(t, env)
	for _, want := range []uint32{1, 0} {
		r, err := s.call(t, "d", "k=a")
		if err != nil || r.Statuses[0].LimitRemaining != want {
			t.Fatalf("call through sentinel = %v %v, want remaining %d", r, err, want)
		}
	}
	env["REDIS_URL"] = "mymaster"
	var stderr syncBuffer
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	if code := run(t.Context(), lookup, environ(env), &stderr, nil); code != 1 || !strings.Contains(stderr.String(), "REDIS_URL=\"mymaster\": with REDIS_TYPE=sentinel") {
		t.Errorf("sentinel without sentinels: run = %d, %s", code, stderr.String())
	}
}
