package main

import (
	"os"
	"strings"
	"testing"
)

// readButUnused are variables read (an invalid value exits) whose value
// changes nothing: the guide says "warned and ignored".
var readButUnused = map[string]bool{"EXPIRATION_JITTER_MAX_SECONDS": true}

// TestMigrationGuideHasEveryVariable: the migration guide's table has one
// row for every variable of the reference, saying what is done with it in
// words that agree with what is read here, so that the table cannot fall
// behind the code.
func TestMigrationGuideHasEveryVariable(t *testing.T) {
	guide, err := os.ReadFile("../../docs/migrating-from-envoy-ratelimit.md")
	if err != nil {
		t.Fatal(err)
	}
	// Only the section of every variable: other sections have tables of
	// their own variables.
	_, section, ok := strings.Cut(string(guide), "\n## Every variable of the reference\n")
	if !ok {
		t.Fatal("the migration guide has no section \"Every variable of the reference\"")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	rows := map[string]string{}
	for _, line := range strings.Split(section, "\n") {
		rest, ok := strings.CutPrefix(line, "| `")
		if !ok {
			continue
		}
		name, rest, ok := strings.Cut(rest, "` | ")
		if !ok {
			continue
		}
		cells := strings.Split(strings.TrimSuffix(rest, " |"), " | ")
		if len(cells) != 2 {
			continue // another table
		}
		if _, dup := rows[name]; dup {
			t.Errorf("%s has two rows", name)
		}
		rows[name] = cells[1]
	}
	list, err := os.ReadFile("testdata/envoy-ratelimit-variables.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range strings.Split(string(list), "\n") {
		if name == "" || strings.HasPrefix(name, "#") {
			continue
		}
		what, ok := rows[name]
		switch {
		case !ok:
			t.Errorf("%s: no row in the migration guide's table of variables", name)
		case notImplemented[name] != "" && !strings.HasPrefix(what, "warned and ignored") && !strings.HasPrefix(what, "exits"):
			t.Errorf("%s is not read, but the guide says %q", name, what)
		case notImplemented[name] == "" && !readButUnused[name] && !strings.HasPrefix(what, "honoured"):
			t.Errorf("%s is read, but the guide says %q", name, what)
		case readButUnused[name] && !strings.HasPrefix(what, "warned and ignored"):
			t.Errorf("%s is read but not used, but the guide says %q", name, what)
		}
	}
}
