package serving

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tree makes a temporary directory holding files, by their slash-separated
// paths below it, and returns it.
func tree(t *testing.T, files ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range files {
		path := filepath.Join(dir, filepath.FromSlash(f))
		err := os.MkdirAll(filepath.Dir(path), 0o755)
		if err == nil {
			err = os.WriteFile(path, []byte(f), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestFingerprintSeesChanges(t *testing.T) {
	for _, dirs := range []bool{false, true} {
		dir := tree(t, "a.yaml", "sub/b.yaml")
		a, b := filepath.Join(dir, "a.yaml"), filepath.Join(dir, "sub", "b.yaml")
		other := filepath.Join(tree(t, "other.yaml"), "other.yaml")
		base := Fingerprint(dirs, dir)
		if again := Fingerprint(dirs, dir); again != base {
			t.Fatalf("dirs %v: changed without a change:\n%s\n%s", dirs, base, again)
		}
		past := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
		steps := []struct {
			name   string
			change func() error
		}{
			{"a file in a subdirectory is rewritten", func() error { return os.WriteFile(b, []byte("bb"), 0o644) }},
			{"a file's time changes", func() error { return os.Chtimes(a, past, past) }},
			{"a file's mode changes", func() error { return os.Chmod(a, 0o600) }},
			{"a file is added", func() error { return os.WriteFile(filepath.Join(dir, "sub", "c.yaml"), nil, 0o644) }},
			{"a file is removed", func() error { return os.Remove(a) }},
			{"a link is added", func() error { return os.Symlink(other, filepath.Join(dir, "link.yaml")) }},
			{"a link's target changes", func() error { return os.WriteFile(other, []byte("changed"), 0o644) }},
			{"a link dangles", func() error { return os.Remove(other) }},
		}
		last := base
		for _, st := range steps {
			if err := st.change(); err != nil {
				t.Fatal(err)
			}
			got := Fingerprint(dirs, dir)
			if got == last {
				t.Errorf("dirs %v: %s: unchanged:\n%s", dirs, st.name, got)
			}
			if again := Fingerprint(dirs, dir); again != got {
				t.Errorf("dirs %v: %s: unstable:\n%s\n%s", dirs, st.name, got, again)
			}
			last = got
		}
	}
}

func TestFingerprintDirs(t *testing.T) {
	dir := tree(t, "a.yaml")
	files, all := Fingerprint(false, dir), Fingerprint(true, dir)
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := Fingerprint(false, dir); got != files {
		t.Errorf("without dirs, an empty directory changed the fingerprint:\n%s\n%s", files, got)
	}
	if got := Fingerprint(true, dir); got == all {
		t.Errorf("with dirs, an empty directory left the fingerprint unchanged:\n%s", got)
	}
}

func TestFingerprintPaths(t *testing.T) {
	dir := tree(t, "a.yaml", "b.yaml")
	both := Fingerprint(false, filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.yaml"))
	if !strings.Contains(both, "a.yaml") || !strings.Contains(both, "b.yaml") {
		t.Errorf("Fingerprint(a, b) does not describe both:\n%s", both)
	}
	missing := filepath.Join(dir, "none.yaml")
	got := Fingerprint(false, missing)
	if got == "" || got != Fingerprint(false, missing) {
		t.Errorf("a missing file's fingerprint %q, want a stable description", got)
	}
	if err := os.WriteFile(missing, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if Fingerprint(false, missing) == got {
		t.Errorf("a missing file that appears left the fingerprint unchanged")
	}
}

func TestFingerprintDoesNotWalkLinkedDirs(t *testing.T) {
	target, dir := tree(t), tree(t)
	if err := os.Symlink(target, filepath.Join(dir, "linked")); err != nil {
		t.Fatal(err)
	}
	if got := Fingerprint(false, dir); !strings.Contains(got, "linked") {
		t.Fatalf("the link is not described:\n%s", got)
	}
	// The linked directory counts by its own entry, through the link, not by
	// the files in it.
	if err := os.WriteFile(filepath.Join(target, "x.yaml"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := Fingerprint(false, dir); strings.Contains(got, "x.yaml") {
		t.Errorf("the linked directory was walked into:\n%s", got)
	}
}
