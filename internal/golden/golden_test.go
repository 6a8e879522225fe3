package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// recorder is a testing.TB that keeps its failures instead of reporting them.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true; panic(r) }
func (r *recorder) Fatal(...any)          { r.failed = true; panic(r) }

// run calls f with a recorder and reports whether it failed.
func run(t *testing.T, f func(tb testing.TB)) (failed bool) {
	r := &recorder{TB: t}
	defer func() {
		if v := recover(); v != nil && v != r {
			panic(v)
		}
		failed = r.failed
	}()
	f(r)
	return
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "want.txt")
	if err := os.WriteFile(file, []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		file     string
		got      string
		optional bool
		fail     bool
	}{
		{"same", file, "a\n", false, false},
		{"different", file, "b\n", false, true},
		{"missing", filepath.Join(dir, "none"), "a\n", false, true},
		{"optional absent and empty", filepath.Join(dir, "none"), "", true, false},
		{"optional absent, something to say", filepath.Join(dir, "none"), "a\n", true, true},
		{"optional present, nothing to say", file, "", true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			failed := run(t, func(tb testing.TB) {
				if tc.optional {
					CheckOptional(tb, tc.file, []byte(tc.got))
				} else {
					Check(tb, tc.file, []byte(tc.got))
				}
			})
			if failed != tc.fail {
				t.Errorf("Check(%s, %q) failed = %v, want %v", filepath.Base(tc.file), tc.got, failed, tc.fail)
			}
		})
	}
}

func TestUpdate(t *testing.T) {
	*update = true
	defer func() { *update = false }()
	dir := t.TempDir()
	file := filepath.Join(dir, "want.txt")
	Check(t, file, []byte("new\n"))
	if b, err := os.ReadFile(file); err != nil || string(b) != "new\n" {
		t.Fatalf("after Check with -update, %s = %q, %v; want %q", file, b, err, "new\n")
	}
	CheckOptional(t, file, nil)
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatalf("after CheckOptional(nil) with -update, %s exists: %v", file, err)
	}
}

func TestGlob(t *testing.T) {
	if !run(t, func(tb testing.TB) { Glob(tb, filepath.Join(t.TempDir(), "*")) }) {
		t.Error("Glob of no match did not fail")
	}
	if got := Glob(t, "*.go"); len(got) < 2 {
		t.Errorf("Glob(*.go) = %v, want this package's files", got)
	}
}
