package policytest

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestEnvoyGateway runs testdata/envoygateway/test.yaml: local buckets (default and per
// value), an invalid policy's 500 and a response cost counted after the request.
func TestEnvoyGateway(t *testing.T) {
	res, err := RunFile(filepath.Join("testdata", "envoygateway", "test.yaml"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Cases) != 4 {
		t.Fatalf("%d cases, want 4", len(res.Cases))
	}
	for i, c := range res.Cases {
		if !c.Passed() {
			t.Errorf("%s: %s\n%s", res.Names[i], strings.Join(c.Failures, "\n"), c.Explain)
		}
	}
}

// TestSimulateEnvoyGateway replays requests against a target of BackendTrafficPolicies and
// counts, per rule, the requests it applied to, admitted and limited.
func TestSimulateEnvoyGateway(t *testing.T) {
	target, err := CompileTopology([]string{filepath.Join("testdata", "envoygateway", "inputs.yaml")}, "lab/gw")
	if err != nil {
		t.Fatal(err)
	}
	sim, err := NewSimulator(target)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 5 {
		for _, host := range []string{"costs.lab.test", "local.lab.test"} {
			e := &LogEntry{Time: t0.Add(time.Duration(i) * 100 * time.Millisecond), Method: "GET", Authority: host, Path: "/"}
			if _, err := sim.Replay(e); err != nil {
				t.Fatal(err)
			}
		}
	}
	got := map[string][3]int64{}
	for _, ls := range sim.Report().Limits {
		got[ls.Limit.Namespace+" "+ls.Limit.Name] = [3]int64{ls.Requests, ls.Admitted, ls.Limited}
	}
	want := map[string][3]int64{
		"lab/gw/web lab/costs/rule/0":   {5, 2, 3}, // 1 + 4 per request, 10 a minute
		"local lab/local local default": {5, 2, 3}, // 2 a second, 100ms apart
		"local lab/local/rule/1":        {0, 0, 0},
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: requests, admitted, limited = %v, want %v (all: %v)", k, got[k], w, got)
		}
	}
}
