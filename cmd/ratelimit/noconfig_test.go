package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// A start without the configuration directory says which directory, that
// no configuration is loaded and what happens meanwhile; it does not claim
// a configuration in force. Once one is loaded, a broken one keeps it, and
// says so.
func TestMissingConfigDirectoryMessage(t *testing.T) {
	for _, watchRoot := range []string{"true", "false"} {
		t.Run("RUNTIME_WATCH_ROOT="+watchRoot, func(t *testing.T) {
			root := t.TempDir()
			env := baseEnv(root)
			env["RUNTIME_WATCH_ROOT"] = watchRoot
			dir := filepath.Join(root, "ratelimit", "config")
			st, _, err := readSettings(func(k string) (string, bool) { v, ok := env[k]; return v, ok }, nil)
			if err != nil {
				t.Fatal(err)
			}
			read := (&loader{s: st}).dirOptions().Dir() // the directory read in this mode
			s := start(t, env)
			log := s.log.String()
			if strings.Contains(log, "in force is kept") {
				t.Errorf("with no configuration loaded, the log claims one in force:\n%s", log)
			}
			for _, want := range []string{"no rate limit configuration is loaded", "every call fails until a valid one loads", "dir=", read, "it is read again when"} {
				if !strings.Contains(log, want) {
					t.Errorf("the log lacks %q:\n%s", want, log)
				}
			}
			if watchRoot == "false" {
				writeFile(t, filepath.Join(dir, "d.yaml"), limitYAML(10))
				eventually(t, "the configuration loaded", func() bool { return limitOf(s.call(t, "d", "k=v")) == 10 })
				writeFile(t, filepath.Join(dir, "d.yaml"), "domain: [")
				eventually(t, "the broken configuration refused", func() bool {
					return strings.Contains(s.log.String(), "the configuration in force is kept")
				})
				if got := limitOf(s.call(t, "d", "k=v")); got != 10 {
					t.Errorf("after a broken reload, limit %d, want the 10 in force", got)
				}
			}
		})
	}
}

// The xDS client says whether a configuration is in force when a stream
// ends or a response is refused.
func TestXDSMeanwhile(t *testing.T) {
	c := &xdsClient{}
	if got := c.meanwhile(); !strings.Contains(got, "no rate limit configuration is loaded") {
		t.Errorf("before any response: %q", got)
	}
	c.applied = true
	if got := c.meanwhile(); got != "the configuration in force is kept" {
		t.Errorf("after one: %q", got)
	}
}
