package kuadrant

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/wasmshim"
)

// FuzzCompile feeds arbitrary documents to the kuadrant.io/v1 decoder and, when they are
// valid, to Compile: nothing panics, every compiled configuration is one the wasm-shim
// evaluator accepts, and the compiled limits are valid limits.
func FuzzCompile(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "compile", "*", "input.yaml"))
	more, _ := filepath.Glob(filepath.Join("..", "policy", "testdata", "invalid", "kuadrant-v1.yaml"))
	for _, file := range append(files, more...) {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		set, err := policy.Decode("fuzz.yaml", data)
		if err != nil {
			return
		}
		res := Compile(set, Options{})
		for _, gw := range res.Gateways {
			if _, err := wasmshim.New(&gw.Wasm); err != nil {
				t.Fatalf("Gateway %s: the compiled configuration does not load: %v", gw.Gateway, err)
			}
		}
		if err := limitador.ValidateLimits(res.Limits()); err != nil {
			t.Fatalf("the compiled limits are invalid: %v", err)
		}
	})
}
