// Package depstest checks, from a package's tests, that the packages a
// proxy-wasm filter imports stay small: they depend on nothing but the
// standard library and the rlpkit packages named, and they build for
// GOOS=wasip1 GOARCH=wasm. It runs the go command of the toolchain that runs
// the tests.
package depstest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// StandardLibraryOnly fails t when pkgs (patterns for the go command,
// relative to the test's directory) depend on a package outside the
// standard library that allowed does not list (the packages themselves
// must be listed too), or when they do not build for GOOS=wasip1
// GOARCH=wasm.
func StandardLibraryOnly(t testing.TB, pkgs []string, allowed ...string) {
	t.Helper()
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		t.Fatalf("the go command is needed to list dependencies: %v", err)
	}
	args := append([]string{"list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}"}, pkgs...)
	out, err := exec.Command(goTool, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	ok := map[string]bool{}
	for _, a := range allowed {
		ok[a] = true
	}
	for _, dep := range strings.Fields(string(out)) {
		if !ok[dep] {
			t.Errorf("%s depends on %s; only the standard library and %s are allowed", strings.Join(pkgs, ", "), dep, strings.Join(allowed, ", "))
		}
	}
	build := exec.Command(goTool, append([]string{"build", "-o", os.DevNull}, pkgs...)...)
	build.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if out, err := build.CombinedOutput(); err != nil {
		t.Errorf("GOOS=wasip1 GOARCH=wasm go build %s: %v\n%s", strings.Join(pkgs, " "), err, out)
	}
}
