package policytest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestEnvoyCalls runs testdata/envoy-calls: two rate-limit filters called in order until
// one answers OVER_LIMIT, and a budget spent when the response is done.
func TestEnvoyCalls(t *testing.T) {
	runPassing(t, "envoy-calls", "policytest.yaml", 2)
}

// TestSimulateEnvoyCalls replays requests through the same files: the second filter's
// rule applies to the requests the first let through; the response-time budget limits.
func TestSimulateEnvoyCalls(t *testing.T) {
	target, err := LoadEnvoy([]string{filepath.Join("testdata", "envoy-calls")}, EnvoyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sim, err := NewSimulator(target)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 4 {
		for _, path := range []string{"/calls", "/done"} {
			if _, err := sim.Replay(&LogEntry{Time: t0.Add(time.Duration(i) * time.Second), Method: "GET", Authority: "a", Path: path}); err != nil {
				t.Fatal(err)
			}
		}
	}
	got := map[string][4]int64{}
	for _, ls := range sim.Report().Limits {
		got[ls.Limit.Namespace+" "+ls.Limit.Name] = [4]int64{ls.Requests, ls.Admitted, ls.Limited, ls.LimitedElsewhere}
	}
	want := map[string][4]int64{
		"a x": {4, 1, 2, 1}, // 2 counted, the second rejected by y; then over
		// A budget of 2: the third check sees 2 of 2 (OK), its response makes
		// 3 (counted, as envoyproxy/ratelimit counts it), the fourth is over.
		"a z": {4, 3, 1, 0},
		"b y": {2, 1, 1, 0}, // called while x had room
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("requests, admitted, limited, elsewhere (-want +got):\n%s", diff)
	}
}

// TestLoadEnvoyErrors: inputs that cannot be tested are errors naming the file.
func TestLoadEnvoyErrors(t *testing.T) {
	route := `virtual_hosts: [{name: a, domains: ["*"], routes: [{match: {prefix: /}, route: {cluster: a, rate_limits: [{actions: [{remote_address: {}}]}]}}]}]`
	rl := `{domain: d, descriptors: [{key: remote_address, rate_limit: {unit: second, requests_per_unit: 1}}]}`
	tests := []struct {
		name  string
		files map[string]string
		o     EnvoyOptions
		want  string
	}{
		{"no ratelimit file", map[string]string{"r.yaml": route}, EnvoyOptions{}, "no envoyproxy/ratelimit configuration"},
		{"no route configuration", map[string]string{"d.yaml": rl}, EnvoyOptions{}, "no Envoy route configuration"},
		{"two route configurations", map[string]string{"r.yaml": route, "s.yaml": route, "d.yaml": rl}, EnvoyOptions{}, "s.yaml:1: a second Envoy route configuration"},
		{"another kind", map[string]string{"r.yaml": route, "d.yaml": rl, "x.yaml": "kind: Gateway\napiVersion: gateway.networking.k8s.io/v1\n"}, EnvoyOptions{}, "x.yaml:1: neither an Envoy route configuration"},
		{"a domain not configured", map[string]string{"r.yaml": route, "d.yaml": rl}, EnvoyOptions{Domain: "e"}, "sends domain e, which the envoyproxy/ratelimit configuration (domains d) does not have"},
		{"a field error at its line", map[string]string{"r.yaml": "virtual_hosts:\n- name: a\n  domains: [x, x]\n", "d.yaml": rl}, EnvoyOptions{}, `r.yaml:3: envoyroute: virtual_hosts[0].domains[1]: domain "x" is already`},
		{"an unknown field at its line", map[string]string{"r.yaml": "virtual_hosts:\n- name: a\n  domians: [x]\n", "d.yaml": rl}, EnvoyOptions{}, `r.yaml:3: envoyroute: proto: unknown field "domians"`},
		{"a bad ratelimit file", map[string]string{"r.yaml": route, "d.yaml": "domain: d\ndescriptors: [{key: k, rate_limit: {unit: fortnight, requests_per_unit: 1}}]\n"}, EnvoyOptions{}, "fortnight"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, data := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := LoadEnvoy([]string{dir}, tc.o)
			// protobuf-go puts a no-break space at random in its messages.
			if err == nil || !strings.Contains(strings.ReplaceAll(err.Error(), "\u00a0", " "), tc.want) {
				t.Errorf("LoadEnvoy = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
