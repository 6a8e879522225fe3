package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/rlpkit/rlpkit/envoyroute"
	"github.com/rlpkit/rlpkit/policytest"
)

// TestCompileEnvoyRoundTrip sends the toystore PolicyTest's requests through the output of
// "rlpkit compile -o envoy examples/toystore", evaluated as Envoy does (package envoyroute),
// and through the PluginConfig's descriptor engine, both against the compiled limits: every
// case passes both ways and every step is decided alike.
func TestCompileEnvoyRoundTrip(t *testing.T) {
	dir := filepath.Join("..", "..", "examples", "toystore")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"compile", "-o", "envoy", dir}, nil, &stdout, &stderr); code != exitOK {
		t.Fatalf("rlpkit compile -o envoy %s: exit %d\n%s", dir, code, stderr.String())
	}
	file := filepath.Join(dir, "policytest.yaml")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	tests, err := policytest.Decode(file, data)
	if err != nil {
		t.Fatal(err)
	}
	test := tests[0]
	engine, err := policytest.CompileTopology([]string{dir}, test.Spec.Gateway)
	if err != nil {
		t.Fatal(err)
	}
	routes, err := envoyroute.Decode(stdout.Bytes(), envoyroute.Options{Gateway: test.Spec.Gateway})
	if err != nil {
		t.Fatalf("envoyroute.Decode(compile -o envoy output): %v", err)
	}
	envoy := policytest.NewTarget(policytest.RouteFrontend(routes), engine.Limits)
	if len(test.Spec.Cases) < 5 {
		t.Fatalf("the toystore PolicyTest has %d cases, want at least 5", len(test.Spec.Cases))
	}
	for i := range test.Spec.Cases {
		c := &test.Spec.Cases[i]
		t.Run(c.Name, func(t *testing.T) {
			want, got := test.RunCase(engine, c), test.RunCase(envoy, c)
			if !want.Passed() || !got.Passed() {
				t.Fatalf("failures: engine %q, Envoy %q\n%s", want.Failures, got.Failures, got.Explain)
			}
			if len(decisions(want.Explain)) == 0 {
				t.Fatalf("no decision in the explanation:\n%s", want.Explain)
			}
			if diff := cmp.Diff(decisions(want.Explain), decisions(got.Explain)); diff != "" {
				t.Errorf("decisions (-engine +Envoy):\n%s", diff)
			}
		})
	}
}

// decisions keeps the lines of an explanation that say how each step was decided, and
// the descriptors the request produced.
func decisions(explain string) []string {
	var out []string
	lines := strings.Split(explain, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "step ") || strings.HasPrefix(l, "  descriptor ") {
			out = append(out, l)
			if strings.HasPrefix(l, "step ") && i+1 < len(lines) {
				out = append(out, lines[i+1])
			}
		}
	}
	return out
}

// TestSimulateEnvoyRoundTrip replays the toystore access log through the same two targets
// as TestCompileEnvoyRoundTrip: the reports are equal.
func TestSimulateEnvoyRoundTrip(t *testing.T) {
	dir := filepath.Join("..", "..", "examples", "toystore")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"compile", "-o", "envoy", dir}, nil, &stdout, &stderr); code != exitOK {
		t.Fatalf("rlpkit compile -o envoy %s: exit %d\n%s", dir, code, stderr.String())
	}
	engine, err := policytest.CompileTopology([]string{dir}, "gateway-system/mygateway")
	if err != nil {
		t.Fatal(err)
	}
	routes, err := envoyroute.Decode(stdout.Bytes(), envoyroute.Options{})
	if err != nil {
		t.Fatal(err)
	}
	envoy := policytest.NewTarget(policytest.RouteFrontend(routes), engine.Limits)
	log, err := os.ReadFile(filepath.Join(dir, "access.log"))
	if err != nil {
		t.Fatal(err)
	}
	report := func(target *policytest.Target) policytest.Report {
		sim, err := policytest.NewSimulator(target)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(bytes.TrimSpace(log), []byte("\n")) {
			var e policytest.LogEntry
			if err := policytest.ParseLogLine(line, &e); err != nil {
				t.Fatal(err)
			}
			if _, err := sim.Replay(&e); err != nil {
				t.Fatal(err)
			}
		}
		return sim.Report()
	}
	want, got := report(engine), report(envoy)
	if want.Requests < 100 || want.Limits[0].Limited == 0 {
		t.Fatalf("the toystore log limits nothing: %+v", want)
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(policytest.LimitStats{})); diff != "" {
		t.Errorf("reports (-engine +Envoy):\n%s", diff)
	}
}
