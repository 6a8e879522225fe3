package main

import (
	"bufio"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStatsdTCP: statsd is sent over TCP by default, as gostats sends it
// (STATSD_PROTOCOL=tcp), one newline-terminated line per counter; a server
// that is not listening yet at start does not stop the service, and gets
// the statistics kept meanwhile once it listens.
func TestStatsdTCP(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens until the service has counted
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "ratelimit/config/a.yaml"), limitYAML(1))
	env := baseEnv(root)
	_, port, _ := net.SplitHostPort(addr)
	env["USE_STATSD"], env["STATSD_HOST"], env["STATSD_PORT"] = "true", "127.0.0.1", port
	env["GOSTATS_FLUSH_INTERVAL_SECONDS"] = "1"
	s := start(t, env)
	for range 2 {
		if _, err := s.call(t, "d", "k=a"); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "a failed statsd connection logged", func() bool { return strings.Contains(s.log.String(), "statsd unreachable") })

	l, err = net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.(*net.TCPListener).SetDeadline(time.Now().Add(10 * time.Second))
	conn, err := l.Accept()
	if err != nil {
		t.Fatalf("statsd never connected: %v\n%s", err, s.log)
	}
	defer conn.Close()
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	lines := map[string]bool{}
	r := bufio.NewScanner(conn)
	for !lines["ratelimit.service.rate_limit.d.k.over_limit:1|c"] && r.Scan() {
		lines[r.Text()] = true
	}
	for _, want := range []string{
		"ratelimit.service.rate_limit.d.k.total_hits:2|c",
		"ratelimit.service.rate_limit.d.k.over_limit:1|c",
		"ratelimit.service.config_load_success:1|c",
	} {
		if !lines[want] {
			t.Errorf("statsd over TCP did not receive the line %q; got %v (%v)", want, lines, r.Err())
		}
	}
}

func TestStatsdProtocolSetting(t *testing.T) {
	for _, tc := range []struct {
		value, want string
	}{{"", "tcp"}, {"udp", "udp"}, {"UDP", "udp"}, {"tcp6", "tcp6"}} {
		env := map[string]string{"STATSD_PROTOCOL": tc.value}
		lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
		s, _, err := readSettings(lookup, environ(env))
		if err != nil || s.statsdProtocol != tc.want {
			t.Errorf("STATSD_PROTOCOL=%q: %q, %v; want %q", tc.value, s.statsdProtocol, err, tc.want)
		}
	}
	env := map[string]string{"STATSD_PROTOCOL": "sctp"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	if _, _, err := readSettings(lookup, environ(env)); err == nil || !strings.Contains(err.Error(), `STATSD_PROTOCOL="sctp": want one of tcp, tcp4, tcp6, udp, udp4, udp6`) {
		t.Errorf("STATSD_PROTOCOL=sctp: %v, want an error naming the variable", err)
	}
}
