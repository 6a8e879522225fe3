package policytest

import (
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/limit/limitador"
)

// TestSimulatorTimelineIsBounded replays a day of requests, one every 5 seconds: the
// timelines stay within MaxBuckets, widen by doubling, and still add up to the counts.
func TestSimulatorTimelineIsBounded(t *testing.T) {
	target, err := CompileTopology([]string{filepath.Join("..", "examples", "toystore")}, "gateway-system/mygateway")
	if err != nil {
		t.Fatal(err)
	}
	sim, err := NewSimulator(target)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	const n = 86400 / 5
	var e LogEntry
	for i := range n {
		line := fmt.Sprintf(`{"start_time":%q,"method":"GET","path":"/admin","authority":"api.toystore.com","downstream_remote_address":"10.0.0.1"}`,
			start.Add(time.Duration(i)*5*time.Second).Format(time.RFC3339))
		if err := ParseLogLine([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		if _, err := sim.Replay(&e); err != nil {
			t.Fatal(err)
		}
	}
	r := sim.Report()
	if r.Requests != n || r.BucketWidth != 64*time.Second || !r.Origin.Equal(start) {
		t.Errorf("Report() = %d requests, width %s, origin %s; want %d, 1m4s, %s", r.Requests, r.BucketWidth, r.Origin, n, start)
	}
	for _, ls := range r.Limits {
		var admitted, limited int64
		for _, b := range ls.Timeline {
			admitted += b.Admitted
			limited += b.Limited
		}
		if len(ls.Timeline) > MaxBuckets || admitted != ls.Admitted || limited != ls.Limited || ls.Requests != n {
			t.Errorf("%s: %d buckets adding up to %d admitted, %d limited, of %d requests; want <= %d buckets, %d, %d, %d",
				ls.Limit.Name, len(ls.Timeline), admitted, limited, ls.Requests, MaxBuckets, ls.Admitted, ls.Limited, n)
		}
	}
}

func TestParseLogLine(t *testing.T) {
	tests := []struct {
		name, line                      string
		method, authority, path, client string
		header, value                   string
		wantErr                         string
	}{
		{
			name:   "JSON with escapes, nested values and x_forwarded_for",
			line:   `{"start_time":"2024-01-01T00:00:00.5Z","method":"POST","path":"\/a\u0062","nested":{"x":[1,"}"]},"authority":"h","x_forwarded_for":"192.0.2.1, 10.0.0.1","x_api_key":"k","response_code":200}`,
			method: "POST", authority: "h", path: "/ab", client: "192.0.2.1", header: "x-api-key", value: "k",
		},
		{
			name:   "default text format",
			line:   `[2024-01-01T00:00:00.000Z] "GET /toy?x=1 HTTP/2" 200 - 0 10 3 2 "203.0.113.9" "curl" "id" "www.toystore.com" "10.1.0.1:80"`,
			method: "GET", authority: "www.toystore.com", path: "/toy?x=1", client: "203.0.113.9", header: "user-agent", value: "curl",
		},
		{
			name: "an escaped backslash before a slash",
			line: `{"start_time":"2024-01-01T00:00:00Z","path":"/a\\/b","x_user":"\"q\""}`,
			path: `/a\/b`, header: "x-user", value: `"q"`,
		},
		{name: "no start time", line: `{"method":"GET"}`, wantErr: "JSON line: no start_time"},
		{name: "bad time", line: `[yesterday] "GET / HTTP/1.1"`, wantErr: `start time "yesterday": want RFC 3339, such as 2024-01-01T00:00:00.000Z`},
		{name: "truncated", line: `{"start_time":"2024-01-01T00:00:00Z","method":"GE`, wantErr: `JSON line: bad string value of "method"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var e LogEntry
			err := ParseLogLine([]byte(tc.line), &e)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("ParseLogLine() = %v, want %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := []string{e.Method, e.Authority, e.Path, e.Client}
			if v, _ := e.Headers.Get(tc.header); v != tc.value || fmt.Sprint(got) != fmt.Sprint([]string{tc.method, tc.authority, tc.path, tc.client}) {
				t.Errorf("ParseLogLine() = %q, %s %q; want %q, %q", got, tc.header, v, []string{tc.method, tc.authority, tc.path, tc.client}, tc.value)
			}
		})
	}
}

// TestSimulatorMemoryIsBounded replays 60,000 lines from 1,000 clients: the heap after the
// last line is within 2 MiB of the heap after the first 10,000, since counters expire with
// their windows and timelines have at most MaxBuckets buckets.
func TestSimulatorMemoryIsBounded(t *testing.T) {
	target, err := CompileTopology([]string{filepath.Join("..", "examples", "toystore")}, "gateway-system/mygateway")
	if err != nil {
		t.Fatal(err)
	}
	sim, err := NewSimulator(target)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	var e LogEntry
	var after10k uint64
	for i := range 60000 {
		line := fmt.Sprintf(`{"start_time":%q,"method":"GET","path":"/toy/%d","authority":"api.toystore.com","downstream_remote_address":"10.0.%d.%d"}`,
			start.Add(time.Duration(i)*20*time.Millisecond).Format(time.RFC3339Nano), i%97, i%1000/250, i%250)
		if err := ParseLogLine([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		if _, err := sim.Replay(&e); err != nil {
			t.Fatal(err)
		}
		if i == 10000 {
			after10k = heap()
		}
	}
	if end := heap(); end > after10k+2<<20 {
		t.Errorf("heap grew from %d bytes after 10,000 lines to %d after 60,000; want constant memory", after10k, end)
	}
}

// TestSimulatorLimitsOfOneNameInTwoDomains: a Gateway policy's limit is compiled once per
// route, with one name in several domains; a replay counts each on its own domain's limit.
func TestSimulatorLimitsOfOneNameInTwoDomains(t *testing.T) {
	cfg, err := descriptor.Decode([]byte(`{"rateLimitPolicies": [
		{"name": "a", "rateLimitDomain": "gw#a", "upstreamCluster": "rls", "hostnames": ["a.example.com"],
		 "gatewayActions": [{"configurations": [{"actions": [{"generic_key": {"descriptor_value": "x"}}]}]}]},
		{"name": "b", "rateLimitDomain": "gw#b", "upstreamCluster": "rls", "hostnames": ["b.example.com"],
		 "gatewayActions": [{"configurations": [{"actions": [{"generic_key": {"descriptor_value": "x"}}]}]}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	engine, err := descriptor.Compile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	target := NewTarget(EngineFrontend(engine), []limitador.Limit{
		{Namespace: "gw#a", Name: "gw spec.default.rateLimits[0]", MaxValue: 1, Seconds: 60},
		{Namespace: "gw#b", Name: "gw spec.default.rateLimits[0]", MaxValue: 1, Seconds: 60},
	})
	sim, err := NewSimulator(target)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		e := LogEntry{Time: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), Method: "GET", Authority: "b.example.com", Path: "/"}
		d, err := sim.Replay(&e)
		if err != nil {
			t.Fatal(err)
		}
		if d.Limit == nil || d.Limit.Namespace != "gw#b" {
			t.Fatalf("Replay() decided by %+v, want the limit of gw#b", d.Limit)
		}
	}
	r := sim.Report()
	got := [][3]int64{{r.Limits[0].Requests, r.Limits[0].Admitted, r.Limits[0].Limited}, {r.Limits[1].Requests, r.Limits[1].Admitted, r.Limits[1].Limited}}
	if want := [][3]int64{{0, 0, 0}, {3, 1, 2}}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Report() requests, admitted, limited = %v, want %v", got, want)
	}
}
