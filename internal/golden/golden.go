// Package golden is the one golden-file loop of rlpkit's tests: Check compares what a test
// produced with a file under testdata/ and shows the difference (-want +got), and the
// -update flag, which this package registers, rewrites the files instead. A reviewer then
// reads the golden diff to see what a change does to users.
//
// A test package that imports it must not register a flag named "update" itself.
package golden

import (
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// Update reports whether the tests run with -update: Check writes instead of comparing.
func Update() bool { return *update }

// Check compares got with the content of file and fails t with the difference; with
// -update it writes got to file instead. A missing file fails t, naming -update.
func Check(t testing.TB, file string, got []byte) {
	t.Helper()
	check(t, file, got, false)
}

// CheckOptional is Check for a file that exists only when there is something to say: an
// empty got wants no file, and -update removes it.
func CheckOptional(t testing.TB, file string, got []byte) {
	t.Helper()
	check(t, file, got, true)
}

func check(t testing.TB, file string, got []byte, optional bool) {
	t.Helper()
	absent := optional && len(got) == 0
	if *update {
		var err error
		if absent {
			if err = os.Remove(file); errors.Is(err, fs.ErrNotExist) {
				err = nil
			}
		} else {
			err = os.WriteFile(file, got, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if absent && errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		t.Fatalf("%v (run the tests with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", file, diff)
	}
}

// Glob returns the names matching pattern (filepath.Glob), failing t when there are none: a
// golden test that finds no case would pass without checking anything.
func Glob(t testing.TB, pattern string) []string {
	t.Helper()
	names, err := filepath.Glob(pattern)
	if err != nil || len(names) == 0 {
		t.Fatalf("no golden cases match %s: %v", pattern, err)
	}
	return names
}
