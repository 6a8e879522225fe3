package envoygateway

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/rlpkit/rlpkit/internal/golden"
	"github.com/rlpkit/rlpkit/policy"
)

// render prints a Result as rlpkit compile -o envoy-gateway does.
func render(t *testing.T, res *Result) []byte {
	t.Helper()
	js, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	y, err := yaml.JSONToYAML(js)
	if err != nil {
		t.Fatal(err)
	}
	return y
}

// compileFile decodes and compiles the documents of data.
func compileFile(t *testing.T, data []byte) *Result {
	t.Helper()
	set, err := policy.Decode("input.yaml", data)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	res, err := Compile(set)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	return res
}

// TestCompileGolden compiles testdata/compile/<case>/input.yaml and compares the result
// with want.yaml; the same documents in shuffled orders give byte-identical output.
func TestCompileGolden(t *testing.T) {
	for _, dir := range golden.Glob(t, filepath.Join("testdata", "compile", "*")) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, "input.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			got := render(t, compileFile(t, data))
			golden.Check(t, filepath.Join(dir, "want.yaml"), got)
			docs := strings.Split(string(data), "\n---\n")
			rng := rand.New(rand.NewPCG(1, uint64(len(docs))))
			for i := range 5 {
				rng.Shuffle(len(docs), func(a, b int) { docs[a], docs[b] = docs[b], docs[a] })
				again := render(t, compileFile(t, []byte(strings.Join(docs, "\n---\n"))))
				if !bytes.Equal(again, got) {
					t.Fatalf("Compile(shuffle %d) differs from Compile(input):\n%s", i, cmp.Diff(string(got), string(again)))
				}
			}
		})
	}
}
