package configfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, name, content string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// Problems name the file and the line of the field, one a line; a file of several
// documents or none says so.
func TestErrorsNameFileAndLine(t *testing.T) {
	limits := write(t, "limits.yaml", "- namespace: a\n  max_value: 1\n  seconds: 0\n")
	_, _, err := Limits(limits)
	if err == nil || !strings.HasPrefix(err.Error(), limits+":3: ") || !strings.Contains(err.Error(), "seconds") {
		t.Errorf("Limits: %v, want %s:3: ... seconds ...", err, limits)
	}
	two := write(t, "two.yaml", "[]\n---\n[]\n")
	if _, _, err := Limits(two); err == nil || err.Error() != two+":2: a limits file holds one document, a list of limits" {
		t.Errorf("Limits of two documents: %v", err)
	}
	empty := write(t, "empty.yaml", "")
	if _, err := PluginConfig(empty); err == nil || err.Error() != empty+": no PluginConfig in the file" {
		t.Errorf("PluginConfig of an empty file: %v", err)
	}
	cfg := write(t, "cfg.yaml", "rateLimitPolicies:\n- name: p\n  rateLimitDomain: d\n  hostnames: ['*']\n  gatewayActions:\n  - configurations:\n    - actions:\n      - nope: {}\n")
	if _, err := PluginConfig(cfg); err == nil || !strings.HasPrefix(err.Error(), cfg+":") || strings.HasPrefix(err.Error(), cfg+":1: ") {
		t.Errorf("PluginConfig with a bad action: %v, want the action's line", err)
	}
}

// A valid limits file decodes, with a warning, at its line, for a limit that never matches.
func TestLimitsDecode(t *testing.T) {
	file := write(t, "l.yaml", "- namespace: a\n  max_value: 1\n  seconds: 60\n  conditions: []\n  variables: []\n")
	limits, _, err := Limits(file)
	if err != nil || len(limits) != 1 || limits[0].Namespace != "a" || limits[0].Seconds != 60 {
		t.Fatalf("Limits: %+v, %v", limits, err)
	}
}
