package rlswire

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestStandardLibraryOnly keeps the codec free of the protobuf runtime: it may import nothing
// but the standard library and rlsmsg (itself standard library only), and it builds for
// GOOS=wasip1 GOARCH=wasm.
func TestStandardLibraryOnly(t *testing.T) {
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	out, err := exec.Command(goTool, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep != "github.com/rlpkit/rlpkit/filter/rlswire" && dep != "github.com/rlpkit/rlpkit/rlsmsg" {
			t.Errorf("rlswire depends on %s; only the standard library and rlsmsg are allowed", dep)
		}
	}
	build := exec.Command(goTool, "build", "-o", os.DevNull, ".")
	build.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if out, err := build.CombinedOutput(); err != nil {
		t.Errorf("GOOS=wasip1 GOARCH=wasm go build: %v\n%s", err, out)
	}
}
