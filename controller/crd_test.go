package controller

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the CRD manifests under config/crd and the generated deep-copy methods")

// controllerGen is the controller-gen the CRD manifests are generated with.
const controllerGen = "sigs.k8s.io/controller-tools/cmd/controller-gen@v0.23.0"

// crdPackages are the packages of rlpkit's cluster API types: RateLimitPolicy
// apim.kuadrant.io/v1alpha1 and kuadrant.io/v1, and TokenRateLimitPolicy kuadrant.io/v1alpha1.
const crdPackages = "./policy;./policy/kuadrantv1;./policy/kuadrantv1alpha1"

// crdFiles are the manifests kept in config/crd: the CRDs of rlpkit's cluster API types.
// controller-gen also writes one for policy.Namespace, the part of core/v1 Namespace that
// merging reads, which is not a CRD and is left out.
var crdFiles = []string{"apim.kuadrant.io_ratelimitpolicies.yaml", "kuadrant.io_ratelimitpolicies.yaml", "kuadrant.io_tokenratelimitpolicies.yaml"}

// TestCRDsAreCurrent regenerates the CRD manifests from the Go types with controller-gen and
// compares them with config/crd; -update rewrites them.
func TestCRDsAreCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("runs controller-gen")
	}
	out := t.TempDir()
	cmd := exec.Command("go", "run", controllerGen, "crd", "paths="+crdPackages, "output:crd:dir="+out)
	cmd.Dir = ".."
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run %s crd paths=%s: %v\n%s", controllerGen, crdPackages, err, b)
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

// deepCopyFiles are the generated deep-copy methods of the API types a controller-runtime
// client reads and writes, by package.
var deepCopyFiles = []string{"policy/kuadrantv1", "policy/kuadrantv1alpha1"}

// TestDeepCopyIsCurrent regenerates the deep-copy methods of the kuadrant.io/v1 types with
// controller-gen and compares them with zz_generated.deepcopy.go; -update rewrites it.
func TestDeepCopyIsCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("runs controller-gen")
	}
	for _, pkg := range deepCopyFiles {
		cmd := exec.Command("go", "run", controllerGen, "object", "paths=./"+pkg, "output:object:stdout")
		cmd.Dir = ".."
		var stderr strings.Builder
		cmd.Stderr = &stderr
		got, err := cmd.Output()
		if err != nil {
			t.Fatalf("go run %s object paths=./%s: %v\n%s", controllerGen, pkg, err, stderr.String())
		}
		file := filepath.Join("..", pkg, "zz_generated.deepcopy.go")
		if *update {
			if err := os.WriteFile(file, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("%v: run go test ./controller -run TestDeepCopyIsCurrent -update", err)
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("%s/zz_generated.deepcopy.go is not what controller-gen generates from the Go types (-want +got):\n%s\nrun go test ./controller -run TestDeepCopyIsCurrent -update", pkg, diff)
		}
	}
}
