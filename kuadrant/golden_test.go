package kuadrant

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/rlpkit/rlpkit/internal/golden"
	"github.com/rlpkit/rlpkit/policy"
)

// goldenOutput is the printed form of a Result: what rlpkit compile -o kuadrant prints.
type goldenOutput struct {
	Gateways []GatewayConfig `json:"gateways"`
	Policies []goldenStatus  `json:"policies"`
}

type goldenStatus struct {
	Name       string            `json:"name"`
	Kind       string            `json:"kind,omitempty"`
	Conditions []goldenCondition `json:"conditions"`
}

type goldenCondition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

func render(t *testing.T, res *Result) []byte {
	t.Helper()
	out := goldenOutput{Gateways: res.Gateways, Policies: []goldenStatus{}}
	for _, p := range slices.Concat(res.Policies, res.TokenPolicies, res.AuthPolicies) {
		gs := goldenStatus{Name: p.Name, Kind: p.Kind}
		for _, c := range p.Conditions {
			gs.Conditions = append(gs.Conditions, goldenCondition{c.Type, string(c.Status), c.Reason, c.Message})
		}
		out.Policies = append(out.Policies, gs)
	}
	js, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	y, err := yaml.JSONToYAML(js)
	if err != nil {
		t.Fatal(err)
	}
	return y
}

// TestCompileGolden compiles testdata/compile/<case>/input.yaml and compares the result
// with want.yaml; the same documents in shuffled orders give byte-identical output, and
// compiling the same input again gives the same output and warnings (no status or
// message may depend on map iteration).
func TestCompileGolden(t *testing.T) {
	for _, dir := range golden.Glob(t, filepath.Join("testdata", "compile", "*")) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, "input.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			set, err := policy.Decode("input.yaml", data)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			res := Compile(set, Options{})
			got := render(t, res)
			golden.Check(t, filepath.Join(dir, "want.yaml"), got)
			warnings := fmt.Sprint((&Compiled{Result: res, set: set}).Warnings())
			for i := range 10 {
				set, err := policy.Decode("input.yaml", data)
				if err != nil {
					t.Fatal(err)
				}
				res := Compile(set, Options{})
				if again := render(t, res); !bytes.Equal(again, got) {
					t.Fatalf("Compile (run %d) differs from the first run:\n%s", i+2, cmp.Diff(string(got), string(again)))
				}
				if again := fmt.Sprint((&Compiled{Result: res, set: set}).Warnings()); again != warnings {
					t.Fatalf("Warnings (run %d) differ from the first run:\n%s", i+2, cmp.Diff(warnings, again))
				}
			}
			docs := strings.Split(string(data), "\n---\n")
			rng := rand.New(rand.NewPCG(1, uint64(len(docs))))
			for i := range 5 {
				rng.Shuffle(len(docs), func(a, b int) { docs[a], docs[b] = docs[b], docs[a] })
				set, err := policy.Decode("input.yaml", []byte(strings.Join(docs, "\n---\n")))
				if err != nil {
					t.Fatalf("Decode(shuffle %d): %v", i, err)
				}
				if again := render(t, Compile(set, Options{})); !bytes.Equal(again, got) {
					t.Fatalf("Compile(shuffle %d) differs from Compile(input):\n%s", i, cmp.Diff(string(got), string(again)))
				}
			}
		})
	}
}
