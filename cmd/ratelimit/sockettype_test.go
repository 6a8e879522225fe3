package main

import (
	"context"
	"strings"
	"testing"
	"time"
)

// A REDIS_URL whose form contradicts REDIS_SOCKET_TYPE stops the start at
// once, naming both variables, instead of dialling the wrong kind of
// address for ever.
func TestSocketTypeContradictingURL(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"a URL with the default unix", map[string]string{"REDIS_URL": "redis://127.0.0.1:16379"},
			[]string{`REDIS_URL="redis://127.0.0.1:16379"`, "REDIS_SOCKET_TYPE is unix", "REDIS_SOCKET_TYPE=tcp"}},
		{"a TLS URL with credentials and unix", map[string]string{"REDIS_URL": "rediss://user:secret@redis:6379/2", "REDIS_SOCKET_TYPE": "unix"},
			[]string{`REDIS_URL="rediss://*****@redis:6379/2"`, "REDIS_SOCKET_TYPE is unix"}},
		{"a path with tcp", map[string]string{"REDIS_URL": "/var/run/redis.sock", "REDIS_SOCKET_TYPE": "tcp"},
			[]string{`REDIS_URL="/var/run/redis.sock" is a socket path`, "REDIS_SOCKET_TYPE is tcp", "REDIS_SOCKET_TYPE=unix"}},
		{"the per-second Redis", map[string]string{"REDIS_URL": "127.0.0.1:1", "REDIS_SOCKET_TYPE": "tcp",
			"REDIS_PERSECOND": "true", "REDIS_PERSECOND_URL": "redis://127.0.0.1:16380"},
			[]string{"REDIS_PERSECOND_URL=", "REDIS_PERSECOND_SOCKET_TYPE is unix"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := baseEnv(t.TempDir())
			env["BACKEND_TYPE"] = "redis"
			for k, v := range tc.env {
				env[k] = v
			}
			// Bounded, so that a start that retries fails the test rather
			// than hanging it.
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			log := &syncBuffer{}
			code := run(ctx, func(k string) (string, bool) { v, ok := env[k]; return v, ok }, environ(env), log, nil)
			if code != 1 {
				t.Fatalf("run = %d, want 1 at once:\n%s", code, log)
			}
			for _, w := range tc.want {
				if !strings.Contains(log.String(), w) {
					t.Errorf("the error lacks %q:\n%s", w, log)
				}
			}
			if strings.Contains(log.String(), "secret") {
				t.Errorf("the error shows the password:\n%s", log)
			}
		})
	}
}

// The forms that agree with the socket type, and every form for a
// cluster or sentinel (always dialled over TCP), are accepted.
func TestSocketTypeAgreeing(t *testing.T) {
	for _, c := range []struct {
		socketType, typ, addr string
	}{
		{"unix", "single", "/var/run/nutcracker/ratelimit.sock"},
		{"tcp", "single", "redis:6379"},
		{"tcp", "single", "redis://redis:6379/1"},
		{"tcp", "single", "rediss://user:pw@redis:6379"},
		{"unix", "cluster", "redis://a:6379,redis://b:6379"},
		{"unix", "sentinel", "mymaster,redis://s1:26379"},
	} {
		conn := redisConn{prefix: "REDIS", socketType: c.socketType, typ: c.typ, url: c.addr}
		if _, err := redisAddrs(conn); err != nil {
			t.Errorf("REDIS_SOCKET_TYPE=%s REDIS_TYPE=%s REDIS_URL=%s: %v", c.socketType, c.typ, c.addr, err)
		}
	}
}
