package envoygateway

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/rlpkit/rlpkit/internal/golden"
)

// peerCondition, peerStatus, peerLocal, peerRoute and peerResult are what Envoy Gateway's
// translator gives for an input, as testdata/egsuite/<case>/peer.yaml restates it.
type peerCondition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

type peerStatus struct {
	Policy     string          `json:"policy"`
	Ancestor   string          `json:"ancestor"`
	Conditions []peerCondition `json:"conditions"`
}

type peerLocal struct {
	Default uint32   `json:"default"`
	Rules   []string `json:"rules"`
}

type peerRoute struct {
	Gateway        string     `json:"gateway"`
	Name           string     `json:"name"`
	Global         []string   `json:"global"`
	Local          *peerLocal `json:"local"`
	DirectResponse uint32     `json:"directResponse"`
}

// peerLimits are the rate-limit rules an xDS route carries, one peerRule each, in the
// route's order.
type peerLimits struct {
	Gateway string   `json:"gateway"`
	Route   string   `json:"route"`
	Rules   []string `json:"rules"`
}

type peerResult struct {
	Statuses []peerStatus `json:"statuses"`
	Routes   []peerRoute  `json:"routes"`
	Limits   []peerLimits `json:"limits"`
}

// peerView returns res in the shape of peer.yaml: every policy's conditions per ancestor,
// and per xDS route the rules it carries, routes sorted by Gateway and name.
func peerView(res *Result) peerResult {
	out := peerResult{Statuses: []peerStatus{}, Routes: []peerRoute{}, Limits: []peerLimits{}}
	for _, st := range res.Statuses {
		ps := peerStatus{Policy: st.Name, Ancestor: st.Ancestor}
		for _, c := range st.Conditions {
			ps.Conditions = append(ps.Conditions, peerCondition{c.Type, string(c.Status), c.Reason, c.Message})
		}
		out.Statuses = append(out.Statuses, ps)
	}
	for _, g := range res.Gateways {
		for _, l := range g.Listeners {
			for _, rt := range l.Routes {
				pr := peerRoute{Gateway: g.Name, Name: rt.Name, DirectResponse: rt.DirectResponse}
				if rl := rt.RateLimit; rl != nil {
					if rl.HasGlobal {
						pr.Global = []string{}
						for _, r := range rl.Global {
							pr.Global = append(pr.Global, r.Name)
						}
					}
					if rl.Local != nil {
						pr.Local = &peerLocal{Default: rl.Local.Requests, Rules: []string{}}
						for _, r := range rl.Local.Rules {
							pr.Local.Rules = append(pr.Local.Rules, r.Name)
						}
					}
				}
				out.Routes = append(out.Routes, pr)
				if pl := routeLimits(g.Name, rt); pl != nil {
					out.Limits = append(out.Limits, *pl)
				}
			}
		}
	}
	slices.SortFunc(out.Routes, func(a, b peerRoute) int {
		return cmp.Compare(a.Gateway+" "+a.Name, b.Gateway+" "+b.Name)
	})
	return out
}

// statusKey names a status in a comparison: "policy @ ancestor".
func statusKey(s peerStatus) string { return s.Policy + " @ " + s.Ancestor }

// TestEnvoyGatewaySuite runs the cases of Envoy Gateway v1.9's translator tests that rlpkit
// can read (internal/gatewayapi/testdata: *ratelimit*, *strategic-merge*,
// *response-override*, with their HTTPRoutes and GRPCRoutes), restated in testdata/egsuite/<case>: input.yaml
// holds the inputs, peer.yaml what Envoy Gateway's translator gives (conditions per
// ancestor, the rules of each xDS route, direct responses), want.yaml rlpkit's full
// output (route actions, rate-limit service configuration, local rate limits, statuses),
// rewritten with -update. A case agrees with Envoy Gateway unless the table names the
// statuses that differ, and why; those must still differ, so that the table stays true.
// GRPCRoutes a case writes as v1alpha2 are restated as v1, whose schema is the same for
// what they hold. clienttrafficpolicy-ratelimitheaders has no directory: it holds a Gateway without
// routes and a ClientTrafficPolicy (not read), so no rate limit and no BackendTrafficPolicy
// status to compare.
func TestEnvoyGatewaySuite(t *testing.T) {
	cases := []struct {
		name string
		// differ are the statuses ("policy @ ancestor") that differ from Envoy Gateway's,
		// and why says why.
		differ []string
		why    string
	}{
		{name: "compression-strategic-merge"},
		{name: "compressor-strategic-merge"},
		{name: "strategic-merge"},
		{name: "strategic-merge-global-ratelimit"},
		{name: "strategic-merge-local-ratelimit"},
		{name: "strategic-merge-only-gw-rl"},
		{name: "strategic-merge-only-httproute-rl"},
		{name: "strategic-merge-section"},
		{name: "strategic-merge-with-multi-parents"},
		{name: "with-local-ratelimit"},
		{name: "with-local-ratelimit-default-route-level-limit"},
		{name: "with-local-ratelimit-distinct-match-type"},
		{name: "with-local-ratelimit-invalid-limit-unit"},
		{name: "with-local-ratelimit-invalid-multiple-route-level-limits"},
		{name: "with-local-ratelimit-shadowmode"},
		{name: "with-ratelimit"},
		{name: "with-ratelimit-both-type"},
		{name: "with-ratelimit-invalid-distinct-invert"},
		{name: "with-ratelimit-invalid-regex"},
		{name: "with-ratelimit-per-rule-headers"},
		{name: "with-response-override"},
		{name: "with-response-override-invalid-valueref"},
		{name: "with-response-override-merged-diff-namespace"},
		{name: "with-response-override-merged-invalid-valueref"},
		{name: "with-response-override-source"},
		{name: "with-shared-ratelimit"},
	}
	dirs := golden.Glob(t, filepath.Join("testdata", "egsuite", "*"))
	if len(dirs) != len(cases) {
		t.Errorf("testdata/egsuite has %d cases, the table %d", len(dirs), len(cases))
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join("testdata", "egsuite", tc.name)
			data, err := os.ReadFile(filepath.Join(dir, "input.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			res := compileFile(t, data)
			golden.Check(t, filepath.Join(dir, "want.yaml"), render(t, res))

			raw, err := os.ReadFile(filepath.Join(dir, "peer.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			var peer peerResult
			if err := yaml.UnmarshalStrict(raw, &peer); err != nil {
				t.Fatalf("peer.yaml: %v", err)
			}
			got := peerView(res)
			if diff := gocmp.Diff(peer.Routes, got.Routes); diff != "" {
				t.Errorf("routes differ from Envoy Gateway's (-peer +rlpkit):\n%s", diff)
			}
			slices.SortStableFunc(got.Limits, func(a, b peerLimits) int {
				return cmp.Or(cmp.Compare(a.Gateway, b.Gateway), cmp.Compare(a.Route, b.Route))
			})
			if diff := gocmp.Diff(peer.Limits, got.Limits); diff != "" {
				t.Errorf("rate-limit rules' limits differ from Envoy Gateway's (-peer +rlpkit):\n%s", diff)
			}
			byKey := func(list []peerStatus) map[string]peerStatus {
				m := map[string]peerStatus{}
				for _, s := range list {
					m[statusKey(s)] = s
				}
				return m
			}
			want, have := byKey(peer.Statuses), byKey(got.Statuses)
			keys := map[string]bool{}
			for k := range want {
				keys[k] = true
			}
			for k := range have {
				keys[k] = true
			}
			for k := range keys {
				diff := gocmp.Diff(want[k], have[k])
				known := slices.Contains(tc.differ, k)
				switch {
				case diff != "" && !known:
					t.Errorf("status %s differs from Envoy Gateway's (-peer +rlpkit):\n%s", k, diff)
				case diff == "" && known:
					t.Errorf("status %s now agrees with Envoy Gateway's: remove it from the table (%s)", k, tc.why)
				}
			}
			for _, k := range tc.differ {
				if !keys[k] {
					t.Errorf("the table names status %s, which neither side has", k)
				}
			}
		})
	}
}

// routeLimits returns the limits of rt's rate-limit rules in peer.yaml's form, nil when it
// has none.
func routeLimits(gateway string, rt *Route) *peerLimits {
	rl := rt.RateLimit
	if rl == nil {
		return nil
	}
	pl := &peerLimits{Gateway: gateway, Route: rt.Name}
	add := func(kind string, r *Rule) { pl.Rules = append(pl.Rules, peerRule(kind, r)) }
	for _, r := range rl.Global {
		add("global", r)
	}
	if rl.Local != nil {
		for _, r := range rl.Local.Rules {
			add("local", r)
		}
	}
	if len(pl.Rules) == 0 {
		return nil
	}
	return pl
}

// peerRule is a rule as peer.yaml writes it: "<global|local> <name> <requests>/<unit>", then
// where set limit-from=<ns>:<key>, its selectors (header:, method:, path:, cidr:; "!" for
// an inverted match, "*" for a distinct one, then =exact ^prefix $suffix ~regex), its
// request-cost= and response-cost= (a number or Envoy's format) and shared, shadow.
func peerRule(kind string, r *Rule) string {
	parts := []string{kind, r.Name, fmt.Sprintf("%d/%s", r.Requests, r.Unit)}
	if m := r.FromMetadata; m != nil {
		parts = append(parts, "limit-from="+m.Namespace+":"+m.Key)
	}
	match := func(prefix string, m StringMatch) string {
		s := prefix
		if m.Invert {
			s += "!"
		}
		s += m.Name
		switch {
		case m.Distinct:
			return s + "*"
		case m.Exact != nil:
			return s + "=" + *m.Exact
		case m.Prefix != nil:
			return s + "^" + *m.Prefix
		case m.Suffix != nil:
			return s + "$" + *m.Suffix
		case m.Regex != nil:
			return s + "~" + *m.Regex
		}
		return s + "?"
	}
	for _, h := range r.Headers {
		parts = append(parts, match("header:", h))
	}
	for _, m := range r.Methods {
		parts = append(parts, match("method:", m))
	}
	if r.Path != nil {
		parts = append(parts, match("path:", *r.Path))
	}
	if c := r.CIDR; c != nil {
		s := "cidr:"
		if c.Invert {
			s += "!"
		}
		s += c.CIDR
		if c.Distinct {
			s += "*"
		}
		parts = append(parts, s)
	}
	for _, c := range []struct {
		name string
		cost *Cost
	}{{"request-cost=", r.RequestCost}, {"response-cost=", r.ResponseCost}} {
		switch {
		case c.cost == nil || !c.cost.set():
		case c.cost.Number != nil:
			parts = append(parts, c.name+fmt.Sprint(*c.cost.Number))
		default:
			parts = append(parts, c.name+c.cost.Format())
		}
	}
	if r.Shared {
		parts = append(parts, "shared")
	}
	if r.ShadowMode {
		parts = append(parts, "shadow")
	}
	return strings.Join(parts, " ")
}
