package depstest

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestInternalLayer: the libraries under internal/ sit below every other package of the
// module (policy imports internal/jsonerr, the stores' tests internal/redistest), so none of
// them imports a package of the module outside internal/; helpers above the public packages
// live beside their users (examples/internal), and the commands under internal/ (tools such as
// rlsload) are not imported by anything.
func TestInternalLayer(t *testing.T) {
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	out, err := exec.Command(goTool, "list", "-f", "{{.ImportPath}} {{.Name}} {{join .Imports \" \"}}", "github.com/rlpkit/rlpkit/internal/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	const module, internal = "github.com/rlpkit/rlpkit/", "github.com/rlpkit/rlpkit/internal/"
	libraries := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[1] == "main" {
			continue
		}
		libraries++
		for _, imp := range f[2:] {
			if strings.HasPrefix(imp, module) && !strings.HasPrefix(imp, internal) {
				t.Errorf("%s imports %s: a library under internal/ imports only the standard library, other modules and internal/", f[0], imp)
			}
		}
	}
	if libraries == 0 {
		t.Fatal("go list found no library under internal/")
	}
}
