package controller

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/wasmshim"
)

// ServeFromConfigMap (a test helper, exported for the package controller_test) sends n
// requests through the ConfigMap as wasm-shim and rlpkit serve read it: kuadrant-wasm.yaml
// gives each request's descriptor, limits.yaml (rlpkit serve --limits) decides. It returns
// the codes.
func ServeFromConfigMap(t *testing.T, cm *corev1.ConfigMap, method, host, path, client string, n int) []string {
	t.Helper()
	wasmJSON, err := yaml.YAMLToJSON([]byte(cm.Data[KeyKuadrantWasm]))
	if err != nil {
		t.Fatal(err)
	}
	var cfg wasmshim.Config
	if err := json.Unmarshal(wasmJSON, &cfg); err != nil {
		t.Fatalf("%s: %v", KeyKuadrantWasm, err)
	}
	shim, err := wasmshim.New(&cfg)
	if err != nil {
		t.Fatalf("%s: %v", KeyKuadrantWasm, err)
	}
	limitsJSON, err := yaml.YAMLToJSON([]byte(cm.Data[KeyLimits]))
	if err != nil {
		t.Fatal(err)
	}
	limits, err := limitador.DecodeLimits(limitsJSON)
	if err != nil {
		t.Fatalf("%s: %v", KeyLimits, err)
	}
	ev, err := limitador.NewEvaluator(limits, counter.NewMemoryStore(counter.MemoryOptions{}))
	if err != nil {
		t.Fatalf("%s: %v", KeyLimits, err)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var codes []string
	for range n {
		res := shim.Evaluate(&wasmshim.Request{Method: method, Host: host, Path: path, SourceAddress: client})
		if len(res.Calls) != 1 {
			t.Fatalf("wasm-shim made %d calls, want 1:\n%s", len(res.Calls), res.Explain())
		}
		call := res.Calls[0]
		req := call.Request()
		var resp limit.Result
		if err := ev.Evaluate(context.Background(), now, &req, &resp); err != nil {
			t.Fatal(err)
		}
		codes = append(codes, resp.OverallCode.String())
	}
	return codes
}
