package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	rlv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"github.com/rlpkit/rlpkit/internal/redistest"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// These tests restate the reference's test/service, test/server and
// test/integration behaviours that the conformance cases (testdata) do not
// hold; testdata/reference-suite.md maps every reference test.

// statValue returns the value of name in the debug port's /stats, -1 when
// absent.
func statValue(t *testing.T, s *server, name string) int {
	t.Helper()
	_, text := get(t, "http://"+s.addrs.debug+"/stats")
	return statIn(t, text, name)
}

// statIn returns the value of name in a /stats text, -1 when absent.
func statIn(t *testing.T, text, name string) int {
	t.Helper()
	for _, l := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(l, name+": "); ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				t.Fatalf("/stats %s: %v", name, err)
			}
			return n
		}
	}
	return -1
}

// checkStats fails the test for each statistic of want whose value in one
// read of /stats differs (-1: absent); when says in which state.
func checkStats(t *testing.T, s *server, when string, want map[string]int) {
	t.Helper()
	_, text := get(t, "http://"+s.addrs.debug+"/stats")
	for name, w := range want {
		if got := statIn(t, text, name); got != w {
			t.Errorf("%s, %s = %d, want %d", when, name, got, w)
		}
	}
}

// TestRefDomainNotFound restates TestBasicConfig's domain_not_found: each
// descriptor of a call to a domain without configuration counts in
// <domain>.domain_not_found, a configured domain never; the domains
// counted on their own are bounded by RLPKIT_STATS_MAX_KEYS.
func TestRefDomainNotFound(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "ratelimit/config/a.yaml"), limitYAML(10))
	env := baseEnv(root)
	env["RLPKIT_STATS_MAX_KEYS"] = "1"
	s := start(t, env)
	for _, c := range []struct {
		domain  string
		entries []string
	}{{"foo", []string{"k=a", "k=b"}}, {"d", []string{"k=a"}}, {"foo", []string{"x=y"}}, {"bar", []string{"k=a"}}} {
		if _, err := s.call(t, c.domain, c.entries...); err != nil {
			t.Fatal(err)
		}
	}
	checkStats(t, s, "after the calls", map[string]int{
		"ratelimit.service.rate_limit.foo.domain_not_found":    3,
		"ratelimit.service.rate_limit._other.domain_not_found": 1,
		"ratelimit.service.rate_limit.d.domain_not_found":      -1,
		"ratelimit.service.rate_limit.bar.domain_not_found":    -1,
	})
	_, metrics := get(t, "http://"+s.addrs.debug+"/metrics")
	if want := `ratelimit_service_rate_limit_domain_not_found_total{domain="foo"} 3`; !strings.Contains(metrics, want) {
		t.Errorf("/metrics lacks %q", want)
	}
}

// TestRefServiceErrors restates TestEmptyDomain, TestEmptyDescriptors and
// TestInitialLoadError: each fails with the reference's message and counts
// in call.should_rate_limit.service_error, none in redis_error.
func TestRefServiceErrors(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "ratelimit/config/a.yaml"), limitYAML(10))
	s := start(t, baseEnv(root))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, c := range []struct {
		req  *rlsv3.RateLimitRequest
		want string
	}{
		{&rlsv3.RateLimitRequest{Descriptors: []*rlv3.RateLimitDescriptor{{Entries: []*rlv3.RateLimitDescriptor_Entry{{Key: "hello", Value: "world"}}}}}, "rate limit domain must not be empty"},
		{&rlsv3.RateLimitRequest{Domain: "d"}, "rate limit descriptor list must not be empty"},
	} {
		_, err := s.client.ShouldRateLimit(ctx, c.req)
		if st := status.Convert(err); st.Code() != codes.Unknown || !strings.HasSuffix(st.Message(), c.want) {
			t.Errorf("ShouldRateLimit(%v) = %v, want Unknown %q", c.req, err, c.want)
		}
	}
	if got := statValue(t, s, "ratelimit.service.call.should_rate_limit.service_error"); got != 2 {
		t.Errorf("service_error = %d, want 2", got)
	}

	bad := t.TempDir()
	writeFile(t, filepath.Join(bad, "ratelimit/config/a.yaml"), "domain: d\nbogus: 1\n")
	s2 := start(t, baseEnv(bad))
	_, err := s2.call(t, "d", "hello=world")
	if st := status.Convert(err); st.Code() != codes.Unknown || st.Message() != "no rate limit configuration loaded" {
		t.Errorf("call without a configuration = %v, want Unknown no rate limit configuration loaded", err)
	}
	checkStats(t, s2, "without a configuration", map[string]int{
		"ratelimit.service.call.should_rate_limit.service_error": 1,
		"ratelimit.service.call.should_rate_limit.redis_error":   0,
		"ratelimit.service.config_load_error":                    1,
		"ratelimit.service.config_load_success":                  0,
	})
}

// TestRefReloadCountsEveryLoad restates the integration suite's
// testConfigReload: adding a file reloads (config_load_success grows, its
// domain answers), and so does removing it.
func TestRefReloadCountsEveryLoad(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "ratelimit/config/a.yaml"), limitYAML(10))
	env := baseEnv(root)
	env["RUNTIME_WATCH_ROOT"] = "false"
	s := start(t, env)
	if r, err := s.call(t, "reload", "block=foo"); err != nil || limitOf(r, err) != -1 {
		t.Fatalf("before the reload: %v %v, want OK without a limit", r, err)
	}
	loads := statValue(t, s, "ratelimit.service.config_load_success")
	file := filepath.Join(root, "ratelimit/config/reload.yaml")
	writeFile(t, file, "domain: reload\ndescriptors:\n  - key: block\n    rate_limit: {unit: second, requests_per_unit: 0}\n")
	eventually(t, "the reload of a new file", func() bool { return statValue(t, s, "ratelimit.service.config_load_success") > loads })
	if r, err := s.call(t, "reload", "block=foo"); err != nil || r.OverallCode != rlsv3.RateLimitResponse_OVER_LIMIT {
		t.Errorf("after the reload: %v %v, want OVER_LIMIT", r, err)
	}
	loads = statValue(t, s, "ratelimit.service.config_load_success")
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the reload of a removal", func() bool { return statValue(t, s, "ratelimit.service.config_load_success") > loads })
	if r, err := s.call(t, "reload", "block=foo"); err != nil || limitOf(r, err) != -1 {
		t.Errorf("after the removal: %v %v, want OK without a limit", r, err)
	}
}

// TestRefReloadGRPCServerCerts restates TestReloadGRPCServerCerts: new
// certificate files replacing the old ones are served from the next
// handshake; a pair that does not load keeps the last good one.
func TestRefReloadGRPCServerCerts(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "ratelimit/config/a.yaml"), limitYAML(1))
	dir := t.TempDir()
	certFile, keyFile, oldCert := selfSigned(t, dir)
	newCertFile, newKeyFile, newCert := selfSigned(t, t.TempDir())
	env := baseEnv(root)
	env["GRPC_SERVER_USE_TLS"] = "true"
	env["GRPC_SERVER_TLS_CERT"] = certFile
	env["GRPC_SERVER_TLS_KEY"] = keyFile
	s := start(t, env)
	dial := func(trusted *x509.Certificate) error {
		pool := x509.NewCertPool()
		pool.AddCert(trusted)
		c, err := tls.Dial("tcp", s.addrs.grpc, &tls.Config{RootCAs: pool, NextProtos: []string{"h2"}})
		if err == nil {
			c.Close()
		}
		return err
	}
	if err := dial(oldCert); err != nil {
		t.Fatalf("with the initial certificate: %v", err)
	}
	if dial(newCert) == nil {
		t.Fatal("a client trusting only the new certificate connected before the change")
	}
	// A half-written pair (the new key with the old certificate) does not
	// load: the old certificate is still served.
	data, err := os.ReadFile(newKeyFile)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, keyFile+".tmp", string(data))
	if err := os.Rename(keyFile+".tmp", keyFile); err != nil {
		t.Fatal(err)
	}
	if err := dial(oldCert); err != nil {
		t.Errorf("with a mismatched pair on disk: %v, want the old certificate kept", err)
	}
	if err := os.Rename(newCertFile, certFile); err != nil {
		t.Fatal(err)
	}
	if err := dial(newCert); err != nil {
		t.Errorf("after the change, with the new certificate: %v", err)
	}
	if dial(oldCert) == nil {
		t.Error("after the change, a client trusting only the old certificate connected")
	}
	if !strings.Contains(s.log.String(), "does not load; the previous one is kept") {
		t.Errorf("the mismatched pair was not logged:\n%s", s.log)
	}
}

// postBody posts body to the server's /json.
func postBody(t *testing.T, s *server, body string) (int, string) {
	t.Helper()
	resp, err := http.Post("http://"+s.addrs.http+"/json", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestRefJSONHandler restates TestJsonHandler: no body or one that is not
// JSON, and any call the service fails (an invalid request, Redis down, no
// configuration) answer 400; an answer 200, or 429 when over the limit.
func TestRefJSONHandler(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "ratelimit/config/a.yaml"), limitYAML(1))
	s := start(t, baseEnv(root))
	one := `{"domain":"d","descriptors":[{"entries":[{"key":"k","value":"a"}]}]}`
	for _, c := range []struct {
		body string
		code int
		want string
	}{
		{"", 400, ""},
		{"}", 400, ""},
		{`{"domain":"d"}`, 400, "Bad Request"},
		{one, 200, `"overallCode":"OK"`},
		{one, 429, `"overallCode":"OVER_LIMIT"`},
	} {
		if code, body := postBody(t, s, c.body); code != c.code || !strings.Contains(body, c.want) {
			t.Errorf("POST /json %q = %d %q, want %d with %q", c.body, code, body, c.code, c.want)
		}
	}
	// The reference takes any method.
	put, err := http.NewRequest("PUT", "http://"+s.addrs.http+"/json", strings.NewReader(`{"domain":"d","descriptors":[{"entries":[{"key":"k","value":"b"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := http.DefaultClient.Do(put); err != nil || resp.StatusCode != 200 {
		t.Errorf("PUT /json = %v %v, want 200", resp, err)
	} else {
		resp.Body.Close()
	}

	down := redistest.Start(t)
	s2 := start(t, redisEnv(t, down, "single"))
	down.Kill()
	if code, body := postBody(t, s2, one); code != 400 {
		t.Errorf("POST /json with Redis down = %d %q, want 400", code, body)
	}
	bad := t.TempDir()
	writeFile(t, filepath.Join(bad, "ratelimit/config/a.yaml"), "domain: d\nbogus: 1\n")
	s3 := start(t, baseEnv(bad))
	if code, body := postBody(t, s3, one); code != 400 || body != "Bad Request\n" {
		t.Errorf("POST /json without a configuration = %d %q, want 400 Bad Request", code, body)
	}
}

// headersOf returns the response's headers as "Key: value" lines.
func headersOf(r *rlsv3.RateLimitResponse) string {
	var b strings.Builder
	for _, h := range r.GetResponseHeadersToAdd() {
		b.WriteString(h.Key + ": " + h.Value + "\n")
	}
	return b.String()
}

// TestRefResponseHeaders restates TestServiceWithCustomRatelimitHeaders and
// TestServiceWithDefaultRatelimitHeaders: the LIMIT_*_HEADER names, the
// limit, remaining and reset of the descriptor the reference picks: the
// last one over the limit, else the first with the least remaining.
func TestRefResponseHeaders(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "ratelimit/config/a.yaml"), `domain: h
descriptors:
  - key: hourly
    rate_limit: {unit: hour, requests_per_unit: 5}
  - key: minutely
    rate_limit: {unit: minute, requests_per_unit: 6}
  - key: small
    rate_limit: {unit: minute, requests_per_unit: 1}
  - key: big
    rate_limit: {unit: minute, requests_per_unit: 2}
`)
	env := baseEnv(root)
	env["LIMIT_RESPONSE_HEADERS_ENABLED"] = "true"
	env["LIMIT_LIMIT_HEADER"] = "A-Ratelimit-Limit"
	env["LIMIT_REMAINING_HEADER"] = "A-Ratelimit-Remaining"
	env["LIMIT_RESET_HEADER"] = "A-Ratelimit-Reset"
	s := start(t, env)
	awayFromWindowEnd()
	send := func(call string) *rlsv3.RateLimitResponse {
		t.Helper()
		req, err := parseCall(call)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		r, err := s.client.ShouldRateLimit(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// Both have 4 left: the first is described, whatever its reset.
	r := send("h minutely=a,@hits=2 hourly=a")
	if want := "A-Ratelimit-Limit: 6\nA-Ratelimit-Remaining: 4\n"; !strings.HasPrefix(headersOf(r), want) {
		t.Errorf("headers of a tie = %q, want %q then the reset", headersOf(r), want)
	}
	// Both over: the last is described.
	r = send("h +hits=3 small=a big=a")
	want := "A-Ratelimit-Limit: 2\nA-Ratelimit-Remaining: 0\nA-Ratelimit-Reset: "
	if r.OverallCode != rlsv3.RateLimitResponse_OVER_LIMIT || !strings.HasPrefix(headersOf(r), want) {
		t.Errorf("headers of two over the limit = %q (%v), want %q", headersOf(r), r.OverallCode, want)
	}
	delete(env, "LIMIT_LIMIT_HEADER")
	delete(env, "LIMIT_REMAINING_HEADER")
	delete(env, "LIMIT_RESET_HEADER")
	s = start(t, env)
	if got := headersOf(send("h hourly=b")); !strings.HasPrefix(got, "RateLimit-Limit: 5\nRateLimit-Remaining: 4\nRateLimit-Reset: ") {
		t.Errorf("default header names: %q", got)
	}
}

// TestRefEscapedStatNames restates TestEscapingInvalidChartersInMetricName:
// ':' and '|' of a statistics key are written '_' in statsd names and
// /stats, so that a request value cannot break a statsd line.
func TestRefEscapedStatNames(t *testing.T) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "ratelimit/config/a.yaml"), "domain: d\ndescriptors:\n  - key: path\n    detailed_metric: true\n    rate_limit: {unit: hour, requests_per_unit: 10}\n")
	env := baseEnv(root)
	env["USE_STATSD"], env["STATSD_HOST"], env["STATSD_PROTOCOL"] = "true", "127.0.0.1", "udp"
	env["STATSD_PORT"] = strconv.Itoa(pc.LocalAddr().(*net.UDPAddr).Port)
	env["GOSTATS_FLUSH_INTERVAL_SECONDS"] = "1"
	s := start(t, env)
	for _, v := range []string{"/foo/bar", "/foo:*:bar", "/foo|bar|baz", "/foo:bar|baz"} {
		if _, err := s.call(t, "d", "path="+v); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{
		"ratelimit.service.rate_limit.d.path_/foo/bar.total_hits",
		"ratelimit.service.rate_limit.d.path_/foo_*_bar.total_hits",
		"ratelimit.service.rate_limit.d.path_/foo_bar_baz.total_hits",
	}
	if got := statValue(t, s, want[2]); got != 2 {
		t.Errorf("/stats %s = %d, want 2 (two keys escape alike)", want[2], got)
	}
	var got strings.Builder
	buf := make([]byte, 65536)
	pc.SetReadDeadline(time.Now().Add(5 * time.Second))
	for !strings.Contains(got.String(), want[2]) {
		n, _, err := pc.ReadFrom(buf)
		if err != nil {
			t.Fatalf("reading statsd: %v; got:\n%s", err, got.String())
		}
		got.Write(buf[:n])
		got.WriteByte('\n')
	}
	for _, line := range strings.Split(strings.TrimSpace(got.String()), "\n") {
		name, rest, ok := strings.Cut(line, ":")
		if !ok || strings.Count(rest, "|") != 1 || strings.ContainsAny(name, "|") {
			t.Errorf("statsd line %q is not name:value|type", line)
		}
	}
	for _, w := range want[:2] {
		if !strings.Contains(got.String(), w+":1|c") {
			t.Errorf("statsd lacks %s:1|c; got:\n%s", w, got.String())
		}
	}
}

// TestRefGlobalShadowModeCounted restates TestServiceGlobalShadowMode's
// statistics: with SHADOW_MODE=true an over-limit answer turned OK counts
// in global_shadow_mode, and the configuration's load in
// config_load_success.
func TestRefGlobalShadowModeCounted(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "ratelimit/config/a.yaml"), limitYAML(0))
	env := baseEnv(root)
	env["SHADOW_MODE"] = "true"
	s := start(t, env)
	for range 2 {
		if r, err := s.call(t, "d", "k=a", "hello=world"); err != nil || r.OverallCode != rlsv3.RateLimitResponse_OK ||
			r.Statuses[0].Code != rlsv3.RateLimitResponse_OVER_LIMIT {
			t.Fatalf("over the limit with SHADOW_MODE: %v %v, want OK overall, OVER_LIMIT status", r, err)
		}
	}
	checkStats(t, s, "after the calls", map[string]int{
		"ratelimit.service.global_shadow_mode":  2,
		"ratelimit.service.config_load_success": 1,
		"ratelimit.service.config_load_error":   0,
	})
}

// TestRefStatsdOverTCP: by default statistics go to statsd over TCP, as the
// reference's statistics library sends them (its STATSD_PROTOCOL defaults
// to tcp), one "name:value|type" a line; a connection statsd closes is made
// again at a later flush.
func TestRefStatsdOverTCP(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "ratelimit/config/a.yaml"), limitYAML(10))
	env := baseEnv(root)
	env["USE_STATSD"], env["STATSD_HOST"] = "true", "127.0.0.1"
	env["STATSD_PORT"] = strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	env["GOSTATS_FLUSH_INTERVAL_SECONDS"] = "1"
	s := start(t, env)
	// readUntil accepts a connection and reads lines until one has want.
	readUntil := func(want string) {
		t.Helper()
		l.(*net.TCPListener).SetDeadline(time.Now().Add(10 * time.Second))
		conn, err := l.Accept()
		if err != nil {
			t.Fatalf("no statsd connection: %v", err)
		}
		defer conn.Close()
		conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		sc := bufio.NewScanner(conn)
		for sc.Scan() {
			line := sc.Text()
			if name, rest, ok := strings.Cut(line, ":"); !ok || name == "" || strings.Count(rest, "|") != 1 {
				t.Errorf("statsd line %q is not name:value|type", line)
			}
			if strings.HasPrefix(line, want) {
				return
			}
		}
		t.Fatalf("statsd over TCP: no %q: %v", want, sc.Err())
	}
	if _, err := s.call(t, "d", "k=a"); err != nil {
		t.Fatal(err)
	}
	readUntil("ratelimit.service.rate_limit.d.k.total_hits:1|c")
	// The connection is closed: the next flushes make a new one.
	if _, err := s.call(t, "d", "k=b"); err != nil {
		t.Fatal(err)
	}
	readUntil("ratelimit.service.rate_limit.d.k.within_limit:")
}

// TestRefDebugRoot restates the README's debug port: its root lists the
// endpoints, one "path: help" a line.
func TestRefDebugRoot(t *testing.T) {
	s := start(t, baseEnv(t.TempDir()))
	code, body := get(t, "http://"+s.addrs.debug+"/")
	for _, want := range []string{
		"/debug/pprof/: root of various pprof endpoints. hit for help.\n",
		"/rlconfig: print out the currently loaded configuration for debugging\n",
		"/stats: print out stats\n",
	} {
		if code != 200 || !strings.Contains(body, want) {
			t.Errorf("GET / on the debug port = %d %q, want 200 with %q", code, body, want)
		}
	}
}

// TestRefDefaultPrometheusMapping restates the README's Prometheus section:
// with USE_PROMETHEUS=true and no PROMETHEUS_MAPPER_YAML the statistics
// are named by the reference's built-in mapping. (Keys of one level and of
// two map to one name with different labels, which statsd_exporter, and
// so the reference, keeps only one of: the configuration here has keys of
// two levels only, and one of one level in its own server.)
func TestRefDefaultPrometheusMapping(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "ratelimit/config/a.yaml"), `domain: d
descriptors:
  - key: route
    descriptors:
      - key: method
        rate_limit: {unit: hour, requests_per_unit: 10}
`)
	env := baseEnv(root)
	env["USE_PROMETHEUS"], env["PROMETHEUS_ADDR"] = "true", "127.0.0.1:0"
	s := start(t, env)
	req, err := parseCall("d route=r,method=GET")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := s.client.ShouldRateLimit(ctx, req); err != nil {
		t.Fatal(err)
	}
	_, body := get(t, "http://"+s.addrs.debug+"/metrics")
	for _, want := range []string{
		`ratelimit_service_rate_limit_within_limit{domain="d",key1="route",key2="method"} 1`,
		`ratelimit_service_total_requests{grpc_method="ShouldRateLimit"} 1`,
		`ratelimit_service_should_rate_limit_error{err_type="redis_error"} 0`,
		`ratelimit_service_config_load_success 1`,
		`ratelimit_service_config_load_error 0`,
	} {
		if !strings.Contains(body, want+"\n") {
			t.Errorf("/metrics lacks %s:\n%s", want, body)
		}
	}
	one := t.TempDir()
	writeFile(t, filepath.Join(one, "ratelimit/config/a.yaml"), limitYAML(10))
	env = baseEnv(one)
	env["USE_PROMETHEUS"], env["PROMETHEUS_ADDR"] = "true", "127.0.0.1:0"
	s = start(t, env)
	if _, err := s.call(t, "d", "k=a"); err != nil {
		t.Fatal(err)
	}
	if _, body := get(t, "http://"+s.addrs.debug+"/metrics"); !strings.Contains(body, `ratelimit_service_rate_limit_total_hits{domain="d",key1="k"} 1`+"\n") {
		t.Errorf("/metrics lacks the one-level key:\n%s", body)
	}
}
