package bundle_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/rlpkit/rlpkit/bundle"
)

// mount returns the set as a directory holding the index and every object's files, as a
// projected volume of the objects holds them.
func mount(idx bundle.Index, objs []bundle.Object) fstest.MapFS {
	fsys := fstest.MapFS{bundle.IndexFile: {Data: []byte(idx.Encode())}}
	for _, o := range objs {
		for f, v := range o.Files {
			fsys[f] = &fstest.MapFile{Data: []byte(v)}
		}
	}
	return fsys
}

func objectName(i int) string { return fmt.Sprintf("rlpkit-gw-part-%d", i) }

// lines returns n YAML-like lines, each naming its number.
func lines(prefix string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "- name: %s %06d\n  max_value: %d\n", prefix, i, i)
	}
	return b.String()
}

func TestSplitRoundTrip(t *testing.T) {
	files := map[string]string{
		"limits.yaml":       lines("limit", 5000),
		"pluginconfig.yaml": lines("policy", 3000),
		"empty.yaml":        "",
		"small.yaml":        "[]\n",
	}
	const max = 64 << 10
	idx, objs, err := bundle.Split(files, max, objectName)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for i, o := range objs {
		if o.Name != objectName(i+1) {
			t.Errorf("object %d is named %q, want %q", i, o.Name, objectName(i+1))
		}
		if o.Size() > max {
			t.Errorf("object %s holds %d bytes, want at most %d", o.Name, o.Size(), max)
		}
		total += o.Size()
	}
	if want := len(files["limits.yaml"]) + len(files["pluginconfig.yaml"]) + 3; total != want {
		t.Errorf("the objects hold %d bytes, want %d (the files, once)", total, want)
	}
	if n := len(objs); n < total/max+1 || n > total/max+2 {
		t.Errorf("%d objects for %d bytes at %d each: the packing wastes room", n, total, max)
	}
	fsys := mount(idx, objs)
	for f, want := range files {
		got, err := bundle.ReadFile(fsys, f)
		if err != nil {
			t.Fatalf("ReadFile(%s): %v", f, err)
		}
		if string(got) != want {
			t.Errorf("ReadFile(%s) differs from the file split (%d bytes, want %d)", f, len(got), len(want))
		}
		for _, p := range idx.Files[f] {
			if v := fsys[p.File].Data; len(v) > 0 && v[len(v)-1] != '\n' {
				t.Errorf("part %s of %s does not end at a line's end", p.File, f)
			}
		}
	}
	if got := idx.Files["limits.yaml"][1].File; got != "limits.part-2.yaml" {
		t.Errorf("the second part of limits.yaml is %q, want limits.part-2.yaml", got)
	}

	// The same files give the same set.
	idx2, objs2, err := bundle.Split(files, max, objectName)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(idx.Encode(), idx2.Encode()); diff != "" {
		t.Errorf("a second Split gives another index (-first +second):\n%s", diff)
	}
	if diff := cmp.Diff(objs, objs2); diff != "" {
		t.Errorf("a second Split gives other objects (-first +second):\n%s", diff)
	}
}

// TestSplitLongLines: a line longer than a part is cut between two characters, never inside
// a multi-byte one, and the file reads back whole.
func TestSplitLongLines(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune("aé€𝄞\n")
	for trial := range 50 {
		n := rng.IntN(20000)
		var b strings.Builder
		for range n {
			if rng.IntN(500) == 0 {
				b.WriteRune('\n')
			} else {
				b.WriteRune(alphabet[rng.IntN(len(alphabet)-1)])
			}
		}
		content := b.String()
		max := 1024 + rng.IntN(8192)
		idx, objs, err := bundle.Split(map[string]string{"f.txt": content}, max, objectName)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range objs {
			for name, v := range o.Files {
				if !isValidUTF8(v) {
					t.Fatalf("trial %d: part %s is not valid UTF-8: a character was cut", trial, name)
				}
			}
			if o.Size() > max {
				t.Fatalf("trial %d: object %s holds %d bytes, want at most %d", trial, o.Name, o.Size(), max)
			}
		}
		got, err := bundle.ReadFile(mount(idx, objs), "f.txt")
		if err != nil || string(got) != content {
			t.Fatalf("trial %d (%d bytes, parts of %d): ReadFile = %d bytes, %v; want the content", trial, len(content), max, len(got), err)
		}
	}
}

func isValidUTF8(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

// TestReadFileMixed: a volume holding a part of another version of the set is refused,
// whichever part is stale, and so is one missing a part.
func TestReadFileMixed(t *testing.T) {
	old := map[string]string{"limits.yaml": lines("old", 3000)}
	cur := map[string]string{"limits.yaml": lines("new", 3000)}
	idx, objs, err := bundle.Split(cur, 32<<10, objectName)
	if err != nil {
		t.Fatal(err)
	}
	_, oldObjs, err := bundle.Split(old, 32<<10, objectName)
	if err != nil {
		t.Fatal(err)
	}
	if len(idx.Files["limits.yaml"]) < 3 {
		t.Fatalf("the set has %d parts, want 3 or more for the test", len(idx.Files["limits.yaml"]))
	}
	for i, p := range idx.Files["limits.yaml"] {
		fsys := mount(idx, objs)
		fsys[p.File] = &fstest.MapFile{Data: []byte(oldObjs[i].Files[p.File])}
		_, err := bundle.ReadFile(fsys, "limits.yaml")
		var mis *bundle.MismatchError
		if !errors.As(err, &mis) || mis.Part.File != p.File || !strings.Contains(err.Error(), "ConfigMap "+p.Object) {
			t.Errorf("ReadFile with part %s stale = %v, want a MismatchError naming it and its ConfigMap", p.File, err)
		}
		delete(fsys, p.File)
		if _, err := bundle.ReadFile(fsys, "limits.yaml"); !errors.As(err, &mis) || mis.Part.File != p.File {
			t.Errorf("ReadFile with part %s missing = %v, want a MismatchError naming it", p.File, err)
		}
	}
}

func TestReadFile(t *testing.T) {
	plain := fstest.MapFS{"limits.yaml": {Data: []byte("[]\n")}}
	if got, err := bundle.ReadFile(plain, "limits.yaml"); err != nil || string(got) != "[]\n" {
		t.Errorf("ReadFile without an index = %q, %v; want the file as it is", got, err)
	}
	idx, objs, err := bundle.Split(map[string]string{"limits.yaml": "[]\n"}, 1024, objectName)
	if err != nil {
		t.Fatal(err)
	}
	fsys := mount(idx, objs)
	if _, err := bundle.ReadFile(fsys, "pluginconfig.yaml"); err == nil || !strings.Contains(err.Error(), "names no file pluginconfig.yaml (it names limits.yaml)") {
		t.Errorf("ReadFile of a file the index lacks = %v, want an error naming the files it has", err)
	}
	for name, index := range map[string]string{
		"not JSON":       "files: {}",
		"unknown field":  `{"files": {}, "extra": 1}`,
		"path":           `{"files": {"../limits.yaml": []}}`,
		"no digest":      `{"files": {"limits.yaml": [{"file": "limits.part-1.yaml", "object": "x", "size": 3}]}}`,
		"part with path": `{"files": {"limits.yaml": [{"file": "/etc/passwd", "object": "x", "size": 3, "sha256": "` + strings.Repeat("0", 64) + `"}]}}`,
	} {
		fsys := fstest.MapFS{bundle.IndexFile: {Data: []byte(index)}}
		if _, err := bundle.ReadFile(fsys, "limits.yaml"); err == nil || !strings.Contains(err.Error(), bundle.IndexFile) {
			t.Errorf("%s: ReadFile = %v, want an error naming %s", name, err, bundle.IndexFile)
		}
	}
	if _, _, err := bundle.Split(map[string]string{"a": "b"}, 100, objectName); err == nil {
		t.Error("Split with parts of 100 bytes: no error")
	}
	if _, _, err := bundle.Split(map[string]string{"dir/a": "b"}, 2048, objectName); err == nil {
		t.Error("Split of a file name with a path: no error")
	}
}

func BenchmarkSplit(b *testing.B) {
	files := map[string]string{"limits.yaml": lines("limit", 50000), "pluginconfig.yaml": lines("policy", 50000)}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := bundle.Split(files, 512<<10, objectName); err != nil {
			b.Fatal(err)
		}
	}
}
