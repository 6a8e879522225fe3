package envoyxds

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlpkit/rlpkit/internal/golden"
)

// goldenCases returns the directories under testdata holding an input.yaml.
func goldenCases(t *testing.T) []string {
	t.Helper()
	inputs := golden.Glob(t, filepath.Join("testdata", "*", "input.yaml"))
	dirs := make([]string, len(inputs))
	for i, in := range inputs {
		dirs[i] = filepath.Dir(in)
	}
	return dirs
}

// TestGolden translates every testdata/<case>/input.yaml and compares the rendered Envoy
// configuration with want.json, and the caveats with caveats.txt (absent when there are
// none). Run with -update to rewrite them.
func TestGolden(t *testing.T) {
	for _, dir := range goldenCases(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			cfg := loadConfig(t, filepath.Join(dir, "input.yaml"))
			out, err := Translate(cfg, Options{})
			if err != nil {
				t.Fatalf("Translate: %v", err)
			}
			validateOutput(t, out)
			got, err := out.Render()
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			var caveats string
			for _, c := range out.Caveats {
				caveats += c.String() + "\n"
			}
			golden.Check(t, filepath.Join(dir, "want.json"), got)
			golden.CheckOptional(t, filepath.Join(dir, "caveats.txt"), []byte(caveats))
		})
	}
}

// TestGoldenRequestsEquivalent runs every testdata/<case>/requests.json through descriptor and
// through the translated configuration, which must agree.
func TestGoldenRequestsEquivalent(t *testing.T) {
	for _, dir := range goldenCases(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			cfg := loadConfig(t, filepath.Join(dir, "input.yaml"))
			c := newChecker(t, cfg)
			file := filepath.Join(dir, "requests.json")
			var reqs []testRequest
			decodeStrict(t, file, readFile(t, file), &reqs)
			if len(reqs) == 0 {
				t.Fatalf("%s holds no requests", file)
			}
			for i := range reqs {
				name := reqs[i].Name
				if name == "" {
					t.Fatalf("%s: request %d has no name", file, i)
				}
				t.Run(name, func(t *testing.T) { c.check(t, &reqs[i]) })
			}
		})
	}
}

// TestDescriptorGoldenEquivalent reuses descriptor's own golden configurations and requests
// (../descriptor/testdata/generate): for each, Envoy must send what descriptor generates,
// except for the requests listed in knownDifferences, which TestKnownDifferences covers.
func TestDescriptorGoldenEquivalent(t *testing.T) {
	configs, err := filepath.Glob(filepath.Join("..", "descriptor", "testdata", "generate", "*", "config.yaml"))
	if err != nil || len(configs) == 0 {
		t.Fatalf("no descriptor golden configurations: %v", err)
	}
	for _, file := range configs {
		dir := filepath.Dir(file)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			cfg := loadConfig(t, file)
			c := newChecker(t, cfg)
			reqFiles, _ := filepath.Glob(filepath.Join(dir, "*.request.json"))
			if len(reqFiles) == 0 {
				t.Fatalf("%s has no requests", dir)
			}
			for _, rf := range reqFiles {
				name := strings.TrimSuffix(filepath.Base(rf), ".request.json")
				t.Run(name, func(t *testing.T) {
					if why, ok := knownDifferences[filepath.Base(dir)+"/"+name]; ok {
						t.Logf("not compared: %s", why)
						return
					}
					var req testRequest
					decodeStrict(t, rf, readFile(t, rf), &req)
					c.check(t, &req)
				})
			}
		})
	}
}

// knownDifferences are descriptor golden requests on which Envoy and descriptor differ by
// design, as Translate's caveats say.
var knownDifferences = map[string]string{
	"limit-override-and-cost/malformed-override-negative-cost": "a negative cost: Envoy drops the descriptor, descriptor charges 1",
}
