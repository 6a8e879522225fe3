package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// swapLink points link at target atomically, as Kubernetes does with a
// ConfigMap's symbolic link.
func swapLink(t *testing.T, target, link string) {
	t.Helper()
	tmp := link + ".tmp"
	os.Remove(tmp)
	if err := os.Symlink(target, tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, link); err != nil {
		t.Fatal(err)
	}
}

func TestReloadWatchRootSymlinkSwap(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "v1/ratelimit/config/a.yaml"), limitYAML(1))
	writeFile(t, filepath.Join(dir, "v2/ratelimit/config/a.yaml"), limitYAML(2))
	root := filepath.Join(dir, "current")
	swapLink(t, filepath.Join(dir, "v1"), root)
	s := start(t, baseEnv(root))
	if got := limitOf(s.call(t, "d", "k=a")); got != 1 {
		t.Fatalf("limit = %d, want 1", got)
	}
	// Editing a file in place does not reload in this mode.
	writeFile(t, filepath.Join(dir, "v1/ratelimit/config/a.yaml"), limitYAML(7))
	time.Sleep(4 * pollInterval)
	if got := limitOf(s.call(t, "d", "k=a")); got != 1 {
		t.Fatalf("after an edit, limit = %d, want 1 (no reload)", got)
	}
	swapLink(t, filepath.Join(dir, "v2"), root)
	eventually(t, "reload after the link swap", func() bool { return limitOf(s.call(t, "d", "k=a")) == 2 })
}

func TestReloadAppDirectoryOnWrite(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "ratelimit/config/a.yaml")
	writeFile(t, file, limitYAML(1))
	env := baseEnv(root)
	env["RUNTIME_WATCH_ROOT"] = "false"
	s := start(t, env)
	if got := limitOf(s.call(t, "d", "k=a")); got != 1 {
		t.Fatalf("limit = %d, want 1", got)
	}
	writeFile(t, file, limitYAML(3))
	eventually(t, "reload after a write", func() bool { return limitOf(s.call(t, "d", "k=a")) == 3 })
	// A new file with a second domain.
	writeFile(t, filepath.Join(root, "ratelimit/config/b.yaml"), strings.Replace(limitYAML(4), "domain: d", "domain: e", 1))
	eventually(t, "reload after a create", func() bool { return limitOf(s.call(t, "e", "k=a")) == 4 })
	// Removing it removes the domain.
	if err := os.Remove(filepath.Join(root, "ratelimit/config/b.yaml")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "reload after a remove", func() bool { return limitOf(s.call(t, "e", "k=a")) == -1 })
}

func TestBadConfigAtStartThenFixed(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "ratelimit/config/a.yaml")
	writeFile(t, file, "domain: d\nbogus: 1\n")
	env := baseEnv(root)
	env["RUNTIME_WATCH_ROOT"] = "false"
	env["HEALTHY_WITH_AT_LEAST_ONE_CONFIG_LOADED"] = "true"
	s := start(t, env)
	_, err := s.call(t, "d", "k=a")
	if st := status.Convert(err); st.Code() != codes.Unknown || st.Message() != "no rate limit configuration loaded" {
		t.Fatalf("call with no config = %v, want Unknown no rate limit configuration loaded", err)
	}
	if code, _ := get(t, "http://"+s.addrs.http+"/healthcheck"); code != 500 {
		t.Errorf("/healthcheck without config = %d, want 500", code)
	}
	if !strings.Contains(s.log.String(), "config.a.yaml:2: bogus: config error, unknown key 'bogus'") {
		t.Errorf("log does not name the problem:\n%s", s.log)
	}
	writeFile(t, file, limitYAML(5))
	eventually(t, "load of the fixed file", func() bool { return limitOf(s.call(t, "d", "k=a")) == 5 })
	if code, body := get(t, "http://"+s.addrs.http+"/healthcheck"); code != 200 || body != "OK" {
		t.Errorf("/healthcheck = %d %q, want 200 OK", code, body)
	}
}

func TestBadReloadKeepsConfig(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "ratelimit/config/a.yaml")
	writeFile(t, file, limitYAML(1))
	writeFile(t, filepath.Join(root, "ratelimit/config/b.yaml"), strings.Replace(limitYAML(2), "domain: d", "domain: e", 1))
	env := baseEnv(root)
	env["RUNTIME_WATCH_ROOT"] = "false"
	s := start(t, env)
	// One bad file rejects the whole reload, the good one's change too.
	writeFile(t, filepath.Join(root, "ratelimit/config/b.yaml"), "domain: e\ndescriptors:\n  - key: k\n    rate_limit: {unit: fortnight, requests_per_unit: 1}\n")
	writeFile(t, file, limitYAML(9))
	// Each poll that sees a change reloads: one or two failures, depending
	// on whether a poll falls between the two writes.
	eventually(t, "a failed reload", func() bool {
		_, stats := get(t, "http://"+s.addrs.debug+"/stats")
		return strings.Contains(stats, "ratelimit.service.config_load_success: 1\n") &&
			!strings.Contains(stats, "ratelimit.service.config_load_error: 0\n")
	})
	if got := limitOf(s.call(t, "d", "k=a")); got != 1 {
		t.Errorf("after a bad reload, limit = %d, want 1 (the old config)", got)
	}
	if !strings.Contains(s.log.String(), "invalid rate limit unit 'fortnight'") {
		t.Errorf("log does not name the problem:\n%s", s.log)
	}
	_, dump := get(t, "http://"+s.addrs.debug+"/rlconfig")
	if want := "d.k: unit=HOUR requests_per_unit=1, shadow_mode: false\ne.k: unit=HOUR requests_per_unit=2, shadow_mode: false\n"; dump != want {
		t.Errorf("/rlconfig = %q, want %q", dump, want)
	}
}

func TestDotFilesAndConfigMapLayout(t *testing.T) {
	root := t.TempDir()
	cm := filepath.Join(root, "ratelimit/config")
	writeFile(t, filepath.Join(cm, "..2026_01_01/a.yaml"), limitYAML(1))
	if err := os.Symlink("..2026_01_01", filepath.Join(cm, "..data")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("..data/a.yaml", filepath.Join(cm, "a.yaml")); err != nil {
		t.Fatal(err)
	}
	env := baseEnv(root)
	s := start(t, env)
	if _, err := s.call(t, "d", "k=a"); status.Code(err) != codes.Unknown || !strings.Contains(s.log.String(), "duplicate domain 'd'") {
		t.Errorf("ConfigMap layout without RUNTIME_IGNOREDOTFILES: call = %v, want a failure for the duplicate domain; log:\n%s", err, s.log)
	}
	env["RUNTIME_IGNOREDOTFILES"] = "true"
	s2 := start(t, env)
	if got := limitOf(s2.call(t, "d", "k=a")); got != 1 {
		t.Errorf("with RUNTIME_IGNOREDOTFILES, limit = %d, want 1", got)
	}
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
