package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlpkit/rlpkit/bundle"
)

// splitLimits returns a limits file whose first limit, of namespace shop, allows max a year
// per user, followed by filler limits: enough to be split into several parts.
func splitLimits(max string) string {
	var b strings.Builder
	b.WriteString(strings.Replace(reloadLimits, "%s", max, 1))
	for i := range 3000 {
		fmt.Fprintf(&b, "- namespace: filler-%04d\n  max_value: 10\n  seconds: 60\n", i)
	}
	return b.String()
}

// splitSet returns the files of limits split as rlpkit-controller splits a Gateway's
// output (parts of at most 32 KiB): the index, then each part, by file name.
func splitSet(t *testing.T, limits string) map[string]string {
	t.Helper()
	idx, objs, err := bundle.Split(map[string]string{"limits.yaml": limits, "pluginconfig.yaml": "rateLimitPolicies: []\n"}, 32<<10,
		func(n int) string { return fmt.Sprintf("rlpkit-gw-part-%d", n) })
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) < 3 {
		t.Fatalf("the limits are split into %d objects, want 3 or more for the test", len(objs))
	}
	files := map[string]string{bundle.IndexFile: idx.Encode()}
	for _, o := range objs {
		for f, v := range o.Files {
			files[f] = v
		}
	}
	return files
}

// mountVolume writes files as the kubelet writes a ConfigMap volume: into a new timestamped
// directory, then swaps the ..data link to it at once, with a link per file beside it.
func mountVolume(t *testing.T, dir, version string, files map[string]string) {
	t.Helper()
	data := filepath.Join(dir, ".."+version)
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	for f, v := range files {
		if err := os.WriteFile(filepath.Join(data, f), []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tmp := filepath.Join(dir, "..data_tmp")
	if err := os.Symlink(".."+version, tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, "..data")); err != nil {
		t.Fatal(err)
	}
	for f := range files {
		link := filepath.Join(dir, f)
		if _, err := os.Lstat(link); err == nil {
			continue
		}
		if err := os.Symlink(filepath.Join("..data", f), link); err != nil {
			t.Fatal(err)
		}
	}
}

// TestServeLimitsDir: --limits DIR serves the limits of a Gateway's output mounted from its
// ConfigMap (limits.yaml), or from the index and parts of a split output.
func TestServeLimitsDir(t *testing.T) {
	for name, files := range map[string]map[string]string{
		"one ConfigMap": {"limits.yaml": splitLimits("4"), "pluginconfig.yaml": "rateLimitPolicies: []\n"},
		"split":         splitSet(t, splitLimits("4")),
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			mountVolume(t, dir, "2026_01_01", files)
			s := startServe(t, "--addr", "127.0.0.1:0", "--limits", dir)
			if got := currentMax(t, s); got != 4 {
				t.Errorf("max %d, want 4", got)
			}
			if log := s.log.String(); !strings.Contains(log, "limits=3001") || !strings.Contains(log, "limits directory "+dir) {
				t.Errorf("the server does not say it serves the 3,001 limits of the directory:\n%s", log)
			}
		})
	}
	if _, _, err := loadLimitsDir(t.TempDir()); err == nil || !strings.Contains(err.Error(), "neither limits.yaml nor "+bundle.IndexFile) {
		t.Errorf("an empty directory: %v, want an error saying what it lacks", err)
	}
}

// TestServeReloadSplit: a split output mounted as the kubelet mounts it is reloaded only
// whole: a volume whose ConfigMaps the kubelet has refreshed in part (a new index with an
// old part, or the other way round) keeps the limits in force and says why; once every part
// matches the index, the new limits apply.
func TestServeReloadSplit(t *testing.T) {
	dir := t.TempDir()
	v1 := splitSet(t, splitLimits("1"))
	v2 := splitSet(t, splitLimits("2"))
	mountVolume(t, dir, "v1", v1)
	s := startServe(t, "--addr", "127.0.0.1:0", "--reload-interval", "5ms", "--limits", dir)
	if got := currentMax(t, s); got != 1 {
		t.Fatalf("max %d, want 1", got)
	}

	// The new index, with the first part (which holds the shop limit) still old.
	mixed := map[string]string{}
	for f, v := range v2 {
		mixed[f] = v
	}
	mixed["limits.part-1.yaml"] = v1["limits.part-1.yaml"]
	mountVolume(t, dir, "mixed-new-index", mixed)
	waitFor(t, "the mixed set to be refused", func() bool {
		return strings.Contains(s.log.String(), "limits.part-1.yaml (in ConfigMap rlpkit-gw-part-1)") && strings.Contains(s.log.String(), "do not match the index")
	})
	if got := currentMax(t, s); got != 1 {
		t.Errorf("with a new index and an old part: max %d, want 1 still", got)
	}

	// The old index, with the new parts.
	mixed = map[string]string{}
	for f, v := range v2 {
		mixed[f] = v
	}
	mixed[bundle.IndexFile] = v1[bundle.IndexFile]
	before := strings.Count(s.log.String(), "reload failed")
	mountVolume(t, dir, "mixed-old-index", mixed)
	waitFor(t, "the second mixed set to be refused", func() bool { return strings.Count(s.log.String(), "reload failed") > before })
	if got := currentMax(t, s); got != 1 {
		t.Errorf("with an old index and new parts: max %d, want 1 still", got)
	}

	mountVolume(t, dir, "v2", v2)
	waitFor(t, "max 2 to apply", func() bool { return currentMax(t, s) == 2 })
}
