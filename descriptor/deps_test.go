package descriptor

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestStandardLibraryOnly keeps the filter half of the library importable by a proxy-wasm
// filter: descriptor and hostindex may import, transitively, nothing but the standard
// library and rlpkit's standard-library-only leaves (descriptor may import hostindex,
// rlsmsg and fielderr), and both build for
// GOOS=wasip1 GOARCH=wasm.
func TestStandardLibraryOnly(t *testing.T) {
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		t.Fatalf("the go command is needed to list dependencies: %v", err)
	}
	out, err := exec.Command(goTool, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".", "../hostindex").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	allowed := map[string]bool{
		"github.com/rlpkit/rlpkit/descriptor": true,
		"github.com/rlpkit/rlpkit/hostindex":  true,
		"github.com/rlpkit/rlpkit/rlsmsg":     true,
		"github.com/rlpkit/rlpkit/fielderr":   true,
	}
	for _, dep := range strings.Fields(string(out)) {
		if !allowed[dep] {
			t.Errorf("descriptor or hostindex depends on %s; only the standard library is allowed", dep)
		}
	}

	build := exec.Command(goTool, "build", "-o", os.DevNull, ".", "../hostindex")
	build.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if out, err := build.CombinedOutput(); err != nil {
		t.Errorf("GOOS=wasip1 GOARCH=wasm go build: %v\n%s", err, out)
	}
}
