package envoyratelimit

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func TestReadDir(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "sub/config/a.yaml"), "a")
	write(t, filepath.Join(root, "sub/config/nested/b.yml"), "b")
	write(t, filepath.Join(root, "sub/config/.hidden"), "h")
	write(t, filepath.Join(root, "sub/other/c.yaml"), "c")
	write(t, filepath.Join(root, "sub/config.txt"), "d")
	// A ConfigMap mount: files are links into a ..data link to a dated folder.
	write(t, filepath.Join(root, "cm/config/..2026_01_01/e.yaml"), "e")
	symlink(t, "..2026_01_01", filepath.Join(root, "cm/config/..data"))
	symlink(t, "..data/e.yaml", filepath.Join(root, "cm/config/e.yaml"))

	keys := func(fs []File) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.Key+"="+string(f.Data))
		}
		return out
	}
	tests := []struct {
		name string
		o    DirOptions
		want []string
	}{
		{"watch root keeps config. keys", DirOptions{Root: root, Subdirectory: "sub", WatchRoot: true},
			[]string{"config..hidden=h", "config.a.yaml=a", "config.nested.b.yml=b", "config.txt=d"}},
		{"watch root, dot files ignored", DirOptions{Root: root, Subdirectory: "sub", WatchRoot: true, IgnoreDotFiles: true},
			[]string{"config.a.yaml=a", "config.nested.b.yml=b", "config.txt=d"}},
		{"app directory", DirOptions{Root: root, Subdirectory: "sub", AppDirectory: "other"},
			[]string{"other.c.yaml=c"}},
		{"configmap layout reads ..data too", DirOptions{Root: root, Subdirectory: "cm", WatchRoot: true},
			[]string{"config...2026_01_01.e.yaml=e", "config...data.e.yaml=e", "config.e.yaml=e"}},
		{"configmap layout, dot files ignored", DirOptions{Root: root, Subdirectory: "cm", IgnoreDotFiles: true},
			[]string{"config.e.yaml=e"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files, err := ReadDir(tc.o)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, keys(files)); diff != "" {
				t.Errorf("ReadDir(%+v) (-want +got):\n%s", tc.o, diff)
			}
		})
	}
	if _, err := ReadDir(DirOptions{Root: filepath.Join(root, "missing"), WatchRoot: true}); err == nil {
		t.Error("ReadDir(missing) = nil error, want one")
	}
	loop := t.TempDir()
	symlink(t, ".", filepath.Join(loop, "config"))
	if _, err := ReadDir(DirOptions{Root: loop, WatchRoot: true}); err == nil {
		t.Error("ReadDir(link loop) = nil error, want one")
	}
}
