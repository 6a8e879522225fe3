package main

import (
	"crypto/tls"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/internal/redistest"
)

// startTLSRedis runs a redis-server on a free loopback port that speaks
// TLS only, with p's certificate, requiring client certificates of p's CA,
// and returns its address.
func startTLSRedis(t *testing.T, p *testPKI) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command("redis-server", "--port", "0", "--bind", "127.0.0.1", "--tls-port", port, "--save", "",
		"--tls-cert-file", p.certFile, "--tls-key-file", p.key, "--tls-ca-cert-file", p.caFile, "--dir", t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(5 * time.Second); ; {
		c, err := tls.Dial("tcp", addr, p.clientTLS())
		if err == nil {
			c.Close()
			return addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("TLS redis-server on %s did not start: %v", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRedisPerSecondTLS: the per-second Redis speaks TLS
// (REDIS_PERSECOND_TLS=true, with the REDIS_TLS_* files, as the reference
// reads them for both), the main one does not (REDIS_TLS=false): a
// per-second limit is counted over TLS.
func TestRedisPerSecondTLS(t *testing.T) {
	pki := newPKI(t, t.TempDir(), "localhost")
	psAddr := startTLSRedis(t, pki)
	mainSrv := redistest.Start(t)
	env := fastStartup(redisEnv(t, mainSrv, "single"))
	writeFile(t, filepath.Join(env["RUNTIME_ROOT"], "ratelimit/config/a.yaml"), "domain: d\ndescriptors:\n  - key: s\n    rate_limit: {unit: second, requests_per_unit: 1000}\n")
	env["REDIS_PERSECOND"] = "true"
	env["REDIS_PERSECOND_SOCKET_TYPE"] = "tcp"
	env["REDIS_PERSECOND_URL"] = psAddr
	env["REDIS_PERSECOND_TLS"] = "true"
	env["REDIS_TLS_CACERT"], env["REDIS_TLS_CLIENT_CERT"], env["REDIS_TLS_CLIENT_KEY"] = pki.caFile, pki.certFile, pki.key
	s := start(t, env)
	if r, err := s.call(t, "d", "s=a"); err != nil || r.Statuses[0].LimitRemaining != 999 {
		t.Fatalf("per-second call over TLS = %v %v, want OK remaining 999", r, err)
	}
	if keys := keysOf(t, mainSrv.Addr); len(keys) != 0 {
		t.Errorf("the main Redis holds %q, want nothing", keys)
	}

	// Without REDIS_PERSECOND_TLS the per-second Redis refuses the
	// connection: the process never serves and exits once
	// REDIS_STARTUP_MAX_ELAPSED_TIME has passed.
	delete(env, "REDIS_PERSECOND_TLS")
	env["REDIS_STARTUP_MAX_ELAPSED_TIME"] = "200ms"
	code, log := runPending(t, env).exit(t)
	if code != 1 || !strings.Contains(log, fmt.Sprintf("timed out waiting for Redis connection to %s (REDIS_PERSECOND_URL)", psAddr)) {
		t.Errorf("plain connection to the TLS Redis: run = %d, want 1 and the timeout naming REDIS_PERSECOND_URL:\n%s", code, log)
	}
}
