package merge

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/rlpkit/rlpkit/internal/golden"
	"github.com/rlpkit/rlpkit/policy"
)

// goldenOutput is what a golden case shows: per Gateway the PluginConfig, the limits and
// where every piece came from; every policy's conditions.
type goldenOutput struct {
	Gateways []goldenGateway `json:"gateways"`
	Policies []goldenPolicy  `json:"policies"`
	Warnings []string        `json:"warnings,omitempty"`
}

type goldenGateway struct {
	Gateway      string   `json:"gateway"`
	PluginConfig any      `json:"pluginConfig"`
	Limits       any      `json:"limits"`
	Provenance   []string `json:"provenance"`
}

type goldenPolicy struct {
	Name       string   `json:"name"`
	Conditions []string `json:"conditions"`
}

func goldenOf(res *Result) goldenOutput {
	out := goldenOutput{Gateways: []goldenGateway{}, Policies: []goldenPolicy{}}
	for _, gw := range res.Gateways {
		g := goldenGateway{Gateway: gw.Gateway, PluginConfig: gw.PluginConfig, Limits: gw.Limits, Provenance: []string{}}
		for _, rc := range gw.Routes {
			g.Provenance = append(g.Provenance, fmt.Sprintf("route %s via listeners %v", rc.Route, rc.Listeners))
			for i, a := range rc.Actions {
				g.Provenance = append(g.Provenance, fmt.Sprintf("  gatewayActions[%d] <- %s", i, a.Origin.path("gatewayActions")))
			}
			for i, l := range rc.Limits {
				g.Provenance = append(g.Provenance, fmt.Sprintf("  rateLimits[%d] <- %s", i, l.Origin.path("rateLimits")))
			}
			for _, r := range rc.Replaced {
				g.Provenance = append(g.Provenance, fmt.Sprintf("  replaced %s by %s", r.Limit.path("rateLimits"), r.By.path("rateLimits")))
			}
		}
		out.Gateways = append(out.Gateways, g)
	}
	for _, p := range res.Policies {
		gp := goldenPolicy{Name: p.Name}
		for _, c := range p.Conditions {
			gp.Conditions = append(gp.Conditions, fmt.Sprintf("%s=%s %s: %s", c.Type, c.Status, c.Reason, c.Message))
		}
		out.Policies = append(out.Policies, gp)
	}
	for _, w := range res.Warnings {
		out.Warnings = append(out.Warnings, w.String())
	}
	return out
}

// TestGolden compiles testdata/merge/<case>/input.yaml and compares with want.yaml.
func TestGolden(t *testing.T) {
	for _, dir := range golden.Glob(t, filepath.Join("testdata", "merge", "*")) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			set, err := policy.Read([]string{filepath.Join(dir, "input.yaml")}, nil)
			if err != nil {
				t.Logf("input problems (the case may be about them):\n%v", err)
			}
			res, err := Compile(set, Options{})
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			js, err := json.Marshal(goldenOf(res))
			if err != nil {
				t.Fatal(err)
			}
			got, err := yaml.JSONToYAML(js)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join(dir, "want.yaml"), got)
		})
	}
}
