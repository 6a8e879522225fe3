package envoyratelimit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlpkit/rlpkit/inputlimit"
	"github.com/rlpkit/rlpkit/inputlimit/inputlimittest"
)

// TestLoadAliasBomb: a 619-byte file of six levels, each a list of ten
// aliases to the level before, expands to a million descriptors. Load used
// to build them all (and report each duplicate); it now refuses the file
// at the alias that crosses the limit, with one error naming the file and
// the limit.
func TestLoadAliasBomb(t *testing.T) {
	data, err := os.ReadFile("testdata/aliasbomb.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(data) != 619 {
		t.Fatalf("testdata/aliasbomb.yaml is %d bytes, want the 619 of the report", len(data))
	}
	_, err = Load([]File{{Key: "config.bomb.yaml", Data: data}}, LoadOptions{})
	var le *LoadError
	if err == nil || !errors.As(err, &le) {
		t.Fatalf("Load = %v, want a *LoadError", err)
	}
	const want = "config.bomb.yaml:9: error loading config file: aliases and merge keys expand the document by more than 100000 values"
	if err.Error() != want {
		t.Fatalf("Load error = %q\nwant %q", err, want)
	}
}

// TestLoadBounds refuses a bomb of each kind: alias expansion, nesting,
// size, and an alias cycle (which the walk would follow without end).
func TestLoadBounds(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"aliases in metadata", "domain: d\ndescriptors:\n- key: k\n  metadata: {x: " + inputlimittest.Laughs(5) + "}\n",
			"config.f.yaml:4: error loading config file: aliases and merge keys expand the document by more than 100000 values"},
		{"nesting", "domain: d\ndescriptors:\n- key: k\n  metadata: {x: " + inputlimittest.TooDeep() + "}\n",
			"config.f.yaml:4: error loading config file: collections nest more than 1000 deep"},
		{"nested descriptors", "domain: d\ndescriptors: " + strings.Repeat("[{key: k, descriptors: ", 501) + "[]" + strings.Repeat("}]", 501) + "\n",
			"config.f.yaml:2: error loading config file: collections nest more than 1000 deep"},
		{"size", inputlimittest.Padding() + "domain: d\n",
			fmt.Sprintf("config.f.yaml: error loading config file: the input's %d bytes exceed the limit of 16777216 bytes (16 MiB)", inputlimit.MaxBytes+12)},
		{"alias cycle", "domain: d\ndescriptors: &a\n- key: k\n  descriptors: *a\n",
			"config.f.yaml:4: error loading config file: alias *a refers to a node that contains it"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load([]File{{Key: "config.f.yaml", Data: []byte(tc.in)}}, LoadOptions{})
			if err == nil || err.Error() != tc.want {
				t.Fatalf("Load = %v\nwant %s", err, tc.want)
			}
		})
	}
}

// TestReadDirBound: a runtime file larger than the limit is refused
// without being read whole, naming it and the limit.
func TestReadDirBound(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "config")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(file, []byte(inputlimittest.Padding()), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := ReadDir(DirOptions{Root: root})
	want := fmt.Sprintf("ratelimit: reading configuration: %s: the size, %d bytes, exceeds the limit of 16777216 bytes (16 MiB)", file, inputlimit.MaxBytes+2)
	if err == nil || err.Error() != want {
		t.Fatalf("ReadDir = %v\nwant %s", err, want)
	}
}
