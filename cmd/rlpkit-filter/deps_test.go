package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestModuleDependencies keeps the module small and free of the protobuf and gRPC runtimes:
// built for wasip1 it may import only the standard library and rlpkit's filter packages
// (and the standard-library-only leaves they use);
// wazero and go-control-plane are for its tests only.
func TestModuleDependencies(t *testing.T) {
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	allowed := map[string]bool{
		"github.com/rlpkit/rlpkit/cmd/rlpkit-filter": true,
		"github.com/rlpkit/rlpkit/filter":            true,
		"github.com/rlpkit/rlpkit/filter/rlswire":    true,
		"github.com/rlpkit/rlpkit/descriptor":        true,
		"github.com/rlpkit/rlpkit/hostindex":         true,
		"github.com/rlpkit/rlpkit/rlsmsg":            true,
		"github.com/rlpkit/rlpkit/fielderr":          true,
		"github.com/rlpkit/rlpkit/inputlimit":        true,
	}
	for _, dep := range strings.Fields(string(out)) {
		if !allowed[dep] {
			t.Errorf("the module depends on %s; only the standard library and rlpkit's filter packages are allowed", dep)
		}
	}
}
