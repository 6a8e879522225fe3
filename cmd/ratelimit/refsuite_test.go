package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// referenceTestFiles are the reference's test directories the table of
// testdata/reference-suite.md must have rows for, and how many each at
// least (its test functions).
var referenceTestFiles = map[string]int{
	"test/config": 31, "test/service": 25, "test/integration": 16, "test/provider": 1,
	"test/redis": 12, "test/limiter": 12, "test/server": 5, "test/stats": 1, "test/metrics": 2,
	"test/utils": 3, "test/srv": 4, "test/memcached": 12, "README": 11,
}

var testRefRE = regexp.MustCompile(`^([a-z0-9/]+)\.(Test\w+)$`)

// TestReferenceSuiteTable: every row of testdata/reference-suite.md names
// rlpkit tests that exist (package.TestName, or a conformance case), or
// says why there is none, so that the table cannot name a test that was
// renamed or removed.
func TestReferenceSuiteTable(t *testing.T) {
	data, err := os.ReadFile("testdata/reference-suite.md")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	rows := map[string]int{}
	sources := map[string]string{} // package directory -> its test files' text
	for n, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| Reference test") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		if len(cells) != 3 {
			t.Errorf("line %d: %d cells, want 3: %q", n+1, len(cells), line)
			continue
		}
		ref, ours, notes := strings.TrimSpace(cells[0]), strings.TrimSpace(cells[1]), strings.TrimSpace(cells[2])
		if seen[ref] {
			t.Errorf("line %d: %s twice", n+1, ref)
		}
		seen[ref] = true
		dir, _, _ := strings.Cut(ref, " ")
		rows[dir]++
		if ours == "—" {
			if !strings.HasPrefix(notes, "not applicable:") && !strings.HasPrefix(notes, "covered elsewhere:") && !strings.HasPrefix(notes, "not restated:") {
				t.Errorf("line %d: %s has no rlpkit test and no reason", n+1, ref)
			}
			continue
		}
		for _, name := range strings.Split(ours, ", ") {
			if strings.HasSuffix(name, ".txtar") {
				if _, err := os.Stat(filepath.Join("../..", name)); err != nil {
					t.Errorf("line %d: %s: %v", n+1, ref, err)
				}
				continue
			}
			m := testRefRE.FindStringSubmatch(name)
			if m == nil {
				t.Errorf("line %d: %s: %q is neither package.TestName nor a .txtar", n+1, ref, name)
				continue
			}
			src, ok := sources[m[1]]
			if !ok {
				files, _ := filepath.Glob(filepath.Join("../..", m[1], "*_test.go"))
				var b strings.Builder
				for _, f := range files {
					d, err := os.ReadFile(f)
					if err != nil {
						t.Fatal(err)
					}
					b.Write(d)
				}
				src = b.String()
				sources[m[1]] = src
			}
			if !strings.Contains(src, "\nfunc "+m[2]+"(t *testing.T)") {
				t.Errorf("line %d: %s: no %s in %s", n+1, ref, m[2], m[1])
			}
		}
	}
	for dir, want := range referenceTestFiles {
		if rows[dir] < want {
			t.Errorf("%s: %d rows, want at least %d", dir, rows[dir], want)
		}
	}
}
