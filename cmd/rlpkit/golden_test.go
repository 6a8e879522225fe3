package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestToystoreGolden pins what "rlpkit compile examples/toystore", the README's first
// command, prints: examples/toystore/compiled.yaml.golden. Run with -update to rewrite it.
func TestToystoreGolden(t *testing.T) {
	dir := filepath.Join("..", "..", "examples", "toystore")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"compile", dir}, nil, &stdout, &stderr); code != exitOK {
		t.Fatalf("rlpkit compile %s: exit %d\n%s", dir, code, stderr.String())
	}
	golden := filepath.Join(dir, "compiled.yaml.golden")
	if *update {
		if err := os.WriteFile(golden, stdout.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), stdout.String()); diff != "" {
		t.Errorf("rlpkit compile %s (-%s +got):\n%s", dir, golden, diff)
	}
}
