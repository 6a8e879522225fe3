package controller

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the CRD manifests under config/crd")

// controllerGen is the controller-gen the CRD manifests are generated with.
const controllerGen = "sigs.k8s.io/controller-tools/cmd/controller-gen@v0.23.0"

// crdFiles are the manifests kept in config/crd: the CRDs of rlpkit's cluster API types.
// controller-gen also writes one for policy.Namespace, the part of core/v1 Namespace that
// merging reads, which is not a CRD and is left out.
var crdFiles = []string{"apim.kuadrant.io_ratelimitpolicies.yaml"}

// TestCRDsAreCurrent regenerates the CRD manifests from the Go types with controller-gen and
// compares them with config/crd; -update rewrites them.
func TestCRDsAreCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("runs controller-gen")
	}
	out := t.TempDir()
	cmd := exec.Command("go", "run", controllerGen, "crd", "paths=./policy", "output:crd:dir="+out)
	cmd.Dir = ".."
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run %s crd paths=./policy: %v\n%s", controllerGen, err, b)
	}
	for _, name := range crdFiles {
		got, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join("..", "config", "crd", name)
		if *update {
			if err := os.WriteFile(file, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("%v: run go test ./controller -run TestCRDsAreCurrent -update", err)
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("config/crd/%s is not what controller-gen generates from the Go types (-want +got):\n%s\nrun go test ./controller -run TestCRDsAreCurrent -update", name, diff)
		}
	}
}
