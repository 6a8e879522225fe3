package policytest

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/envoygateway"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// TestEnvoyGateway runs testdata/envoygateway/test.yaml: local buckets (default and per
// value), an invalid policy's 500 and a response cost counted after the request.
func TestEnvoyGateway(t *testing.T) {
	runPassing(t, "envoygateway", "test.yaml", 4)
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

// TestEnvoyGatewayFrontend: a target of BackendTrafficPolicies has a Frontend, the calls of
// its rate-limit filters, as the target's own evaluation makes them.
func TestEnvoyGatewayFrontend(t *testing.T) {
	target, err := CompileTopology([]string{filepath.Join("testdata", "envoygateway", "inputs.yaml")}, "lab/gw")
	if err != nil {
		t.Fatal(err)
	}
	cf, ok := target.Frontend.(CallsFrontend)
	if !ok {
		t.Fatalf("Frontend %T is not a CallsFrontend", target.Frontend)
	}
	in := &Input{Method: "GET", Host: "costs.lab.test", Path: "/", Headers: map[string][]string{}}
	calls, done := cf.Calls(in, nil)
	dreq := in.Descriptor()
	set, err := policy.Read([]string{filepath.Join("testdata", "envoygateway", "inputs.yaml")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := envoygateway.Compile(set)
	if err != nil {
		t.Fatal(err)
	}
	ev := res.Gateway("lab/gw").Evaluate(&dreq, 0)
	if len(calls) == 0 || len(calls) != len(ev.Calls) || len(done) != len(ev.Done) {
		t.Fatalf("Calls = %d calls, %d done; the Gateway's evaluation makes %d and %d", len(calls), len(done), len(ev.Calls), len(ev.Done))
	}
	for i := range calls {
		if calls[i].Request.Domain != ev.Calls[i].Request.Domain || len(calls[i].Request.Descriptors) != len(ev.Calls[i].Request.Descriptors) {
			t.Errorf("call %d = %+v, want %+v", i, calls[i].Request, ev.Calls[i].Request)
		}
	}
	var out rlsmsg.Request
	if !target.Frontend.Generate(in, &out, nil) || out.Domain != calls[0].Request.Domain {
		t.Errorf("Generate = %+v, want the first call %+v", out, calls[0].Request)
	}
	if target.Frontend.Generate(&Input{Method: "GET", Host: "nowhere.test", Path: "/"}, &out, nil) {
		t.Errorf("Generate(an unrouted host) = %+v, want no call", out)
	}
}
