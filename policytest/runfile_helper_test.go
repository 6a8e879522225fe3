package policytest

import (
	"path/filepath"
	"strings"
	"testing"
)

// runPassing runs the PolicyTest file testdata/<dir>/<file> and fails the test unless it
// holds cases cases, every one of them passing.
func runPassing(t *testing.T, dir, file string, cases int) {
	t.Helper()
	res, err := RunFile(filepath.Join("testdata", dir, file), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Cases) != cases {
		t.Fatalf("%d cases, want %d", len(res.Cases), cases)
	}
	for i, c := range res.Cases {
		if !c.Passed() {
			t.Errorf("%s: %s\n%s", res.Names[i], strings.Join(c.Failures, "\n"), c.Explain)
		}
	}
}
