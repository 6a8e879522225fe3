package faultsuite

import (
	"bufio"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// metricsGoroutines reads go_goroutines from rlpkit serve's /metrics.
func metricsGoroutines(t *testing.T, httpAddr string) int {
	t.Helper()
	return scrape(t, "http://"+httpAddr+"/metrics", func(line string) (int, bool) {
		v, ok := strings.CutPrefix(line, "go_goroutines ")
		if !ok {
			return 0, false
		}
		f, err := strconv.ParseFloat(v, 64)
		return int(f), err == nil
	})
}

// pprofGoroutines reads the total of cmd/ratelimit's goroutine profile.
func pprofGoroutines(t *testing.T, debugAddr string) int {
	t.Helper()
	return scrape(t, "http://"+debugAddr+"/debug/pprof/goroutine?debug=1", func(line string) (int, bool) {
		v, ok := strings.CutPrefix(line, "goroutine profile: total ")
		if !ok {
			return 0, false
		}
		n, err := strconv.Atoi(v)
		return n, err == nil
	})
}

// scrape returns the first value parse finds in the lines at url.
func scrape(t *testing.T, url string, parse func(string) (int, bool)) int {
	t.Helper()
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if n, ok := parse(sc.Text()); ok {
			return n
		}
	}
	t.Fatalf("GET %s: no goroutine count in the answer", url)
	return 0
}

// settleGoroutines waits until the count is at most want, for up to 10 s
// (closed connections take a moment to end their goroutines), and returns
// the last count.
func settleGoroutines(t *testing.T, s *server, want int) int {
	t.Helper()
	n := s.goroutines(t)
	for deadline := time.Now().Add(10 * time.Second); n > want && time.Now().Before(deadline); n = s.goroutines(t) {
		time.Sleep(100 * time.Millisecond)
	}
	return n
}
