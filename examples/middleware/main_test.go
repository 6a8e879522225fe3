package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rlpkit/rlpkit/internal/redistest"
)

// fixedClock is the proxies' clock: a window start, so the counts below do
// not depend on when the test runs.
func fixedClock() time.Time { return time.Unix(1_700_000_040, 0) }

// proxy is the program running in the background.
type proxy struct {
	url    string
	stdout []string // lines before "listening on"
	stderr *syncBuffer
	stop   func() int // stops it gracefully and returns its exit code
}

// start runs the program with args plus -addr 127.0.0.1:0 and waits until
// it listens.
func start(t *testing.T, args ...string) *proxy {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	outR, outW := io.Pipe()
	p := &proxy{stderr: &syncBuffer{}}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, append(args, "-addr", "127.0.0.1:0"), outW, p.stderr, fixedClock)
		outW.Close()
	}()
	lines := bufio.NewScanner(outR)
	for lines.Scan() {
		if u, ok := strings.CutPrefix(lines.Text(), "listening on "); ok {
			p.url = u
			break
		}
		p.stdout = append(p.stdout, lines.Text())
	}
	go io.Copy(io.Discard, outR)
	if p.url == "" {
		cancel()
		t.Fatalf("the proxy did not start: exit %d, stderr:\n%s", <-done, p.stderr)
	}
	var once sync.Once
	code := 0
	p.stop = func() int {
		once.Do(func() { cancel(); code = <-done })
		return code
	}
	t.Cleanup(func() { p.stop() })
	return p
}

// slowUpstream answers "hello from upstream"; requests to /slow wait until
// released, each signalling entered first.
type slowUpstream struct {
	entered chan struct{}
	release chan struct{}
}

func (u *slowUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/slow" {
		u.entered <- struct{}{}
		<-u.release
	}
	io.WriteString(w, "hello from upstream")
}

type reply struct {
	Status     int
	RetryAfter string
	Body       string
}

// get sends a GET; a transport error comes back as status -1 with the
// error as body, so that it can be called from any goroutine.
func get(url, apiKey string) reply {
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		return reply{Status: -1, Body: err.Error()}
	}
	if apiKey != "" {
		req.Header.Set("X-API-Key", apiKey)
	}
	client := &http.Client{Timeout: 30 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		return reply{Status: -1, Body: err.Error()}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return reply{Status: -1, Body: err.Error()}
	}
	return reply{resp.StatusCode, resp.Header.Get("Retry-After"), string(b)}
}

var (
	ok         = reply{Status: 200, Body: "hello from upstream"}
	overRate   = reply{Status: 429, RetryAfter: "60", Body: "exceed limit 100.5/100"}
	overAPIKey = reply{Status: 429, Body: "exceed limit 3/2"}
)

// TestEndToEnd runs the proxy with the committed limits.toml in front of a
// test upstream: the API key's in-flight limit, then the client address's
// rate limit (100 a minute, weight 50: 200 in a fresh first window).
func TestEndToEnd(t *testing.T) {
	u := &slowUpstream{entered: make(chan struct{}), release: make(chan struct{})}
	upstream := httptest.NewServer(u)
	defer upstream.Close()
	p := start(t, "-config", "limits.toml", "-upstream", upstream.URL)

	wantPlugins := []string{
		"plugin perIP: rate by ip, max 100, step request",
		"plugin perAPIKey: inflight by header X-API-Key, max 2, step proxy_upstream",
	}
	if diff := cmp.Diff(wantPlugins, p.stdout); diff != "" {
		t.Errorf("startup lines mismatch (-want +got):\n%s", diff)
	}

	// Two requests of key k1 held at the upstream fill its in-flight limit.
	sent := 0
	slow := make(chan reply, 2)
	for range 2 {
		go func() { slow <- get(p.url+"/slow", "k1") }()
		<-u.entered
		sent++
	}
	steps := []struct {
		name, key string
		want      reply
	}{
		{"a third request of k1", "k1", overAPIKey},
		{"another key", "k2", ok},
		{"no key", "", ok},
	}
	for _, s := range steps {
		if got := get(p.url+"/", s.key); got != s.want {
			t.Errorf("%s = %+v, want %+v", s.name, got, s.want)
		}
		sent++
	}
	close(u.release)
	for range 2 {
		if got := <-slow; got != ok {
			t.Errorf("held request = %+v, want %+v", got, ok)
		}
	}
	if got := get(p.url+"/", "k1"); got != ok {
		t.Errorf("k1 once its requests finished = %+v, want %+v", got, ok)
	}
	sent++

	// Everything so far counted against 127.0.0.1's rate; 200 pass in all.
	for sent < 200 {
		if got := get(p.url+"/", ""); got != ok {
			t.Fatalf("request %d = %+v, want %+v", sent+1, got, ok)
		}
		sent++
	}
	for i := range 3 {
		if got := get(p.url+"/", ""); got != overRate {
			t.Errorf("request %d = %+v, want %+v", sent+1+i, got, overRate)
		}
	}

	if code := p.stop(); code != 0 {
		t.Errorf("exit code after a graceful stop = %d, want 0; stderr:\n%s", code, p.stderr)
	}
}

// TestSharedRedis runs two proxies on one Redis: they share the rate budget.
func TestSharedRedis(t *testing.T) {
	srv := redistest.Start(t)
	upstream := httptest.NewServer(&slowUpstream{})
	defer upstream.Close()
	a := start(t, "-config", "limits.toml", "-upstream", upstream.URL, "-redis", srv.URL())
	b := start(t, "-config", "limits.toml", "-upstream", upstream.URL, "-redis", srv.URL())
	for i := range 200 {
		p := a
		if i%2 == 1 {
			p = b
		}
		if got := get(p.url+"/", ""); got != ok {
			t.Fatalf("request %d = %+v, want %+v", i+1, got, ok)
		}
	}
	for _, p := range []*proxy{a, b} {
		if got := get(p.url+"/", ""); got != overRate {
			t.Errorf("request past the shared budget = %+v, want %+v", got, overRate)
		}
	}
}

func TestBadInvocations(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.toml")
	if err := os.WriteFile(bad, []byte("[plugins.perIP]\ncategory = \"limit\"\nmax = -1\nburst = 5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{name: "no flags", code: 2, stderr: "usage: middleware -config FILE -upstream URL"},
		{name: "bad upstream", args: []string{"-config", "limits.toml", "-upstream", "ftp://x"}, code: 2, stderr: `-upstream "ftp://x": want an http or https URL`},
		{name: "bad CIDR", args: []string{"-config", "limits.toml", "-upstream", "http://x", "-trusted-proxies", "10.0.0.0/33"}, code: 2, stderr: "-trusted-proxies"},
		{name: "missing file", args: []string{"-config", filepath.Join(dir, "none.toml"), "-upstream", "http://x"}, code: 1, stderr: "none.toml"},
		{
			name: "invalid limits", args: []string{"-config", bad, "-upstream", "http://x"}, code: 1,
			stderr: "httplimit: plugins.perIP.max: must not be negative, got -1\nhttplimit: plugins.perIP.burst: unknown key",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			code := run(context.Background(), tc.args, &stdout, &stderr, fixedClock)
			if code != tc.code || !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("run(%q) = %d, stderr %q; want %d, stderr containing %q", tc.args, code, stderr.String(), tc.code, tc.stderr)
			}
		})
	}
}

// syncBuffer is a strings.Builder safe for the program and the test at once.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
