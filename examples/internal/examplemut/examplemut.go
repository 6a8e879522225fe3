// Package examplemut holds what the examples' tests share to show that
// their PolicyTests notice a changed limit: a copy of an example with one
// file changed, whose policytest.yaml is run.
package examplemut

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rlpkit/rlpkit/policytest"
)

// FailedCases copies policytest.yaml and the files named in others from the
// working directory into a new temporary directory, writes changed there as
// name, runs the copy's policytest.yaml and returns how many of its cases
// fail. A file that cannot be read or written, or a PolicyTest that cannot
// run, fails t.
func FailedCases(t testing.TB, name string, changed []byte, others ...string) int {
	t.Helper()
	dir := t.TempDir()
	for _, f := range append(others, "policytest.yaml") {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, name), changed, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := policytest.RunFile(filepath.Join(dir, "policytest.yaml"), policytest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	failed := 0
	for _, c := range res.Cases {
		if !c.Passed() {
			failed++
		}
	}
	return failed
}
