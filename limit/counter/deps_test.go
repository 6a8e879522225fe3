package counter

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestLightDependencies keeps the counting half of rlpkit light: counter
// imports only the standard library and limit's internal packages (which
// themselves import only the standard library, as the listing of all
// dependencies checks), and the packages built on it alone (the
// Redis store, the HTTP middleware and the middleware example) link neither
// CEL nor its ANTLR parser, which come with package limit/limitador's conditions.
func TestLightDependencies(t *testing.T) {
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		t.Fatalf("the go command is needed to list dependencies: %v", err)
	}
	list := func(t *testing.T, pkg string) []string {
		t.Helper()
		out, err := exec.Command(goTool, "list", "-deps", "-test=false", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		return strings.Fields(string(out))
	}

	t.Run("counter", func(t *testing.T) {
		for _, dep := range list(t, ".") {
			if dep != "github.com/rlpkit/rlpkit/limit/counter" && !strings.HasPrefix(dep, "github.com/rlpkit/rlpkit/limit/internal/") {
				t.Errorf("limit/counter depends on %s; only the standard library and limit/internal are allowed", dep)
			}
		}
	})
	for _, pkg := range []string{"../redis", "../httplimit", "../../examples/middleware"} {
		t.Run(pkg, func(t *testing.T) {
			for _, dep := range list(t, pkg) {
				switch {
				case dep == "github.com/rlpkit/rlpkit/limit/limitador":
					t.Errorf("%s depends on package limit; import limit/counter instead", pkg)
				case strings.HasPrefix(dep, "github.com/google/cel-go/"), strings.HasPrefix(dep, "cel.dev/"), strings.Contains(dep, "antlr"):
					t.Errorf("%s depends on %s; CEL belongs to package limit only", pkg, dep)
				}
			}
		})
	}
}
