package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestFingerprintOnlyReadFiles: a file serve does not read (a log written into an input
// directory) leaves the fingerprint as it was; a file it reads changes it.
func TestFingerprintOnlyReadFiles(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "limits.yaml", "- {namespace: a, max_value: 1, seconds: 1}\n")
	inputs := []string{dir}
	base := fingerprint(inputs)
	writeFile(t, dir, "serve.log", "a line\n")
	writeFile(t, dir, "notes.txt", "notes\n")
	if got := fingerprint(inputs); got != base {
		t.Errorf("a .log and a .txt file written into the input directory changed the fingerprint:\n%s\nwas\n%s", got, base)
	}
	for _, name := range []string{"more.json", "other.yml", "third.YAML"} {
		writeFile(t, dir, name, "[]\n")
		got := fingerprint(inputs)
		if got == base {
			t.Errorf("%s added: fingerprint unchanged", name)
		}
		base = got
	}
	// An input named as a file counts whatever its name.
	file := writeFile(t, dir, "limits.conf", "x")
	before := fingerprint([]string{file})
	writeFile(t, dir, "limits.conf", "xy")
	if fingerprint([]string{file}) == before {
		t.Errorf("an input file given by name: a change left the fingerprint unchanged")
	}
}

// TestReloadOnlyOnContentChange: a file touched, or rewritten with the same bytes, reloads
// nothing; a file whose bytes change, or a new file read, reloads.
func TestReloadOnlyOnContentChange(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "limits.yaml", "one\n")
	reloads := 0
	changed := onContentChange(func() []string { return []string{dir} }, func() { reloads++ })
	step := func(what string, change func(), want int) {
		t.Helper()
		change()
		changed()
		if reloads != want {
			t.Errorf("%s: %d reloads, want %d", what, reloads, want)
		}
	}
	later := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	step("the first change seen", func() {}, 1)
	step("the file touched", func() {
		if err := os.Chtimes(file, later, later); err != nil {
			t.Fatal(err)
		}
	}, 1)
	step("the same bytes rewritten", func() { writeFile(t, dir, "limits.yaml", "one\n") }, 1)
	step("a log written beside it", func() { writeFile(t, dir, "serve.log", "line\n") }, 1)
	step("the bytes changed", func() { writeFile(t, dir, "limits.yaml", "two\n") }, 2)
	step("a file read is added", func() { writeFile(t, dir, "more.yaml", "x\n") }, 3)
	step("a file read is removed", func() {
		if err := os.Remove(filepath.Join(dir, "more.yaml")); err != nil {
			t.Fatal(err)
		}
	}, 4)
}
