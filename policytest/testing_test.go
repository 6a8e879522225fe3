package policytest

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The -update flag a test binary declares, which Run reads.
var update = flag.Bool("update", false, "rewrite the expectations of testdata PolicyTests")

// TestRunUpdates: with -update, Run rewrites the expectations of the cases it ran, keeping
// the file's comments.
func TestRunUpdates(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"pc.yaml", "limits.yaml"} {
		data, err := os.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(dir, "t.yaml")
	doc := `apiVersion: rlpkit.dev/v1alpha1
kind: PolicyTest
metadata: {name: t}
spec:
  pluginConfig: pc.yaml
  limits: limits.yaml
  cases:
  # a comment that stays
  - name: c
    request: {url: "http://api.example.com/", headers: {X-User: ann}}
    steps:
    - want: OK
`
	if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	was := *update
	*update = true
	defer func() { *update = was }()
	Run(t, dir)
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# a comment that stays", "descriptors:\n    - entries: [{key: user, value: ann}]", "limit: limits[0]", "remaining: 1", "reset: 10s"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("after Run with -update the file lacks %q:\n%s", want, got)
		}
	}
}
