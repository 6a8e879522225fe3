package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/limitador"
)

// TestServeExitCodes checks the exit status of the ways serve refuses to
// start: 2 for the command line, 1 for the inputs and listeners.
func TestServeExitCodes(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "good.yaml", "- {namespace: shop, max_value: 1, seconds: 1}\n")
	bad := writeFile(t, dir, "bad.yaml", "- {namespace: shop, max_value: 1, seconds: 0}\n")
	tests := []struct {
		name   string
		args   []string
		want   int
		stderr string
	}{
		{"no input", nil, exitUsage, "rlpkit serve: exactly one of --limits FILE and PATH... is required"},
		{"both inputs", []string{"--limits", good, dir}, exitUsage, "exactly one of"},
		{"stdin", []string{"-"}, exitUsage, `"-" (stdin) cannot be watched`},
		{"unknown flag", []string{"--limits", good, "--nope"}, exitUsage, "flag provided but not defined: -nope"},
		{"bad log format", []string{"--limits", good, "--log-format", "xml"}, exitUsage, `--log-format "xml"`},
		{"negative reload interval", []string{"--limits", good, "--reload-interval", "-1s"}, exitUsage, "--reload-interval -1s: want 0 or more"},
		{"bad Redis URL", []string{"--limits", good, "--redis", "http://x"}, exitUsage, "--redis: limit/redis: "},
		{"unknown Redis option", []string{"--limits", good, "--redis", "redis://127.0.0.1:1?colour=red"}, exitUsage, "--redis: limit/redis: "},
		{"key prefix with a brace", []string{"--limits", good, "--redis", "redis://127.0.0.1:1", "--redis-key-prefix", "a{b"}, exitUsage, "contains a brace"},
		{"Redis flags without Redis", []string{"--limits", good, "--redis-key-prefix", "rl:"}, exitUsage, "--redis-key-prefix and --redis-server-time need --redis"},
		{"max keys with Redis", []string{"--limits", good, "--redis", "redis://127.0.0.1:1", "--max-keys", "10"}, exitUsage, "--max-keys bounds the memory store"},
		{"hash tag without Redis", []string{"--limits", good, "--redis-hash-tag", "first-entry"}, exitUsage, "--redis-hash-tag chooses where counters live in a Redis Cluster; it needs --redis"},
		{"unknown hash tag", []string{"--limits", good, "--redis", "redis://127.0.0.1:1", "--redis-hash-tag", "tenant"}, exitUsage, `want domain or first-entry`},
		{"zero Redis timeout", []string{"--limits", good, "--redis-timeout", "0s"}, exitUsage, "--redis-timeout 0s: want more than 0"},
		{"negative pipeline window", []string{"--limits", good, "--redis", "redis://127.0.0.1:1", "--redis-pipeline-window", "-1ms"}, exitUsage, "--redis-pipeline-window -1ms: want 0 or more"},
		{"pipeline limit too large", []string{"--limits", good, "--redis", "redis://127.0.0.1:1", "--redis-pipeline-limit", "1048577"}, exitUsage, "--redis-pipeline-limit 1048577: want 0 to 1048576"},
		{"pipeline window without Redis", []string{"--limits", good, "--redis-pipeline-window", "1ms"}, exitUsage, "--redis-pipeline-window and --redis-pipeline-limit shape the calls sent to Redis; they need --redis"},
		{"help", []string{"-h"}, exitOK, ""},
		{"invalid limits", []string{"--addr", "127.0.0.1:0", "--limits", bad}, exitInvalid, "bad.yaml:1: limit: [0].seconds: must be greater than 0"},
		{"missing limits file", []string{"--addr", "127.0.0.1:0", "--limits", filepath.Join(dir, "none.yaml")}, exitInvalid, "no such file"},
		{"bad address", []string{"--addr", "127.0.0.1:99999", "--limits", good}, exitInvalid, "rlpkit serve: --addr: listen tcp"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			got := serveUntil(ctx, tc.args, &bytes.Buffer{}, &stderr, func(string, string) {
				t.Errorf("serve %v started serving", tc.args)
				cancel()
			})
			if got != tc.want || !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("serve %v = %d, stderr %q; want %d, stderr containing %q", tc.args, got, stderr.String(), tc.want, tc.stderr)
			}
		})
	}
}

func TestLoadLimitsFile(t *testing.T) {
	dir := t.TempDir()
	want := []limitador.Limit{
		{Namespace: "shop", MaxValue: 10, Seconds: 60, Conditions: []string{"path == '/cart'"}, Variables: []string{"user"}, Name: "cart", Algorithm: counter.AlgorithmGCRA},
		{Namespace: "shop", MaxValue: 5, Seconds: 1},
	}
	tests := []struct {
		name, file, content string
		want                []limitador.Limit
		err                 string
	}{
		{"yaml", "l.yaml", `
# limitador's format
- namespace: shop
  name: cart
  max_value: 10
  seconds: 60
  algorithm: gcra
  conditions: ["path == '/cart'"]
  variables: [user]
- {namespace: shop, max_value: 5, seconds: 1}
`, want, ""},
		{"json", "l.json", `[{"namespace": "shop", "name": "cart", "max_value": 10, "seconds": 60, "algorithm": "gcra",
  "conditions": ["path == '/cart'"], "variables": ["user"]},
 {"namespace": "shop", "max_value": 5, "seconds": 1}]`, want, ""},
		{"empty list", "l.yaml", "[]\n", []limitador.Limit{}, ""},
		{"empty file", "l.yaml", "", nil, "l.yaml: no limits in the file; write [] for none"},
		{"two documents", "l.yaml", "[]\n---\n[]\n", nil, "l.yaml:2: a limits file holds one document, a list of limits"},
		{"not a list", "l.yaml", "namespace: shop\n", nil, "l.yaml:1: limit: "},
		{"every problem with its line", "l.yaml", "- namespace: shop\n  max_value: 1\n  seconds: 0\n- namespace: shop\n  max_value: 1\n  seconds: 1\n  colour: red\n", nil,
			"l.yaml:3: limit: [0].seconds: must be greater than 0\nl.yaml:7: limit: [1].colour: unknown field"},
		{"duplicate key", "l.yaml", "- namespace: a\n  namespace: b\n", nil, `l.yaml: yamljson: line 2: duplicate key "namespace" (first at line 1)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, dir, tc.file, tc.content)
			got, warnings, err := loadLimitsFile(path)
			if len(warnings) > 0 {
				t.Errorf("loadLimitsFile(%s) warnings %q, want none", tc.name, warnings)
			}
			gotErr := ""
			if err != nil {
				gotErr = strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
			}
			if tc.err == "" && err != nil || tc.err != "" && !strings.HasPrefix(gotErr, tc.err) {
				t.Fatalf("loadLimitsFile(%s) error %q, want %q", tc.name, gotErr, tc.err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("loadLimitsFile(%s) mismatch (-want +got):\n%s", tc.name, diff)
			}
		})
	}
}

func TestFingerprint(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	a := writeFile(t, dir, "a.yaml", "a")
	writeFile(t, sub, "b.yaml", "b")
	inputs := []string{dir}
	base := fingerprint(inputs)
	if again := fingerprint(inputs); again != base {
		t.Fatalf("fingerprint changed without a change:\n%s\n%s", base, again)
	}
	past := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	steps := []struct {
		name   string
		change func() error
	}{
		{"a file in a subdirectory is rewritten", func() error { return os.WriteFile(filepath.Join(sub, "b.yaml"), []byte("bb"), 0o644) }},
		{"a file's time changes", func() error { return os.Chtimes(a, past, past) }},
		{"a file is added", func() error { return os.WriteFile(filepath.Join(sub, "c.yaml"), nil, 0o644) }},
		{"a file is removed", func() error { return os.Remove(a) }},
		{"a link is swapped", func() error {
			target := writeFile(t, dir, "target.yaml", "target")
			return os.Symlink(target, filepath.Join(sub, "link.yaml"))
		}},
		{"a link's target changes", func() error { return os.WriteFile(filepath.Join(dir, "target.yaml"), []byte("other"), 0o644) }},
	}
	last := base
	for _, st := range steps {
		if err := st.change(); err != nil {
			t.Fatal(err)
		}
		got := fingerprint(inputs)
		if got == last {
			t.Errorf("%s: fingerprint unchanged:\n%s", st.name, got)
		}
		last = got
	}
	missing := []string{filepath.Join(dir, "none.yaml")}
	if fingerprint(missing) != fingerprint(missing) || fingerprint(missing) == "" {
		t.Errorf("fingerprint of a missing file = %q, want a stable description", fingerprint(missing))
	}
}
