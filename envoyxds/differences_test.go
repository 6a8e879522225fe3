package envoyxds

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

const tenantsConfig = `
rateLimitPolicies:
- name: default/tenants
  rateLimitDomain: tenants
  upstreamCluster: rl
  hostnames: ["*"]
  gatewayActions:
  - configurations:
    - actions: [{metadata: {descriptor_key: tenant, metadata_key: {key: t, path: [{key: id}]}}}]
      limit: {dynamic_metadata: {metadata_key: {key: t, path: [{key: limit}]}}}
      hits_addend: {dynamic_metadata: {metadata_key: {key: t, path: [{key: cost}]}}}
`

const routeEntryConfig = `
rateLimitPolicies:
- rateLimitDomain: team
  upstreamCluster: rl
  hostnames: ["*"]
  gatewayActions:
  - configurations: [{actions: [{metadata: {descriptor_key: team, source: ROUTE_ENTRY, metadata_key: {key: rlpkit, path: [{key: team}]}}}]}]
`

func tenant(extra map[string]any) map[string]any {
	t := map[string]any{"id": "acme"}
	for k, v := range extra {
		t[k] = v
	}
	return map[string]any{"t": t}
}

func u64(n uint64) *uint64 { return &n }

// TestKnownDifferences pins down, with literal expectations on both sides, each place where
// Envoy treats an input differently from descriptor; each is reported as a caveat, and the
// equivalence tests leave these inputs out.
func TestKnownDifferences(t *testing.T) {
	acme := []rlsmsg.Entry{{Key: "tenant", Value: "acme"}}
	tests := []struct {
		name        string
		config      string
		req         testRequest
		noRouteHook bool
		descriptor  []rlsCall
		envoy       []rlsCall
	}{
		{
			name:       "cost metadata absent",
			config:     tenantsConfig,
			req:        testRequest{Method: "GET", Host: "a", Path: "/", DynamicMetadata: tenant(nil)},
			descriptor: []rlsCall{{Cluster: "rl", Domain: "tenants", Descriptors: []simDescriptor{{Entries: acme, HitsAddend: u64(1)}}}},
			envoy:      nil,
		},
		{
			name:       "cost negative",
			config:     tenantsConfig,
			req:        testRequest{Method: "GET", Host: "a", Path: "/", DynamicMetadata: tenant(map[string]any{"cost": -2.0})},
			descriptor: []rlsCall{{Cluster: "rl", Domain: "tenants", Descriptors: []simDescriptor{{Entries: acme, HitsAddend: u64(1)}}}},
			envoy:      nil,
		},
		{
			name:       "cost above 1e9",
			config:     tenantsConfig,
			req:        testRequest{Method: "GET", Host: "a", Path: "/", DynamicMetadata: tenant(map[string]any{"cost": 2e9})},
			descriptor: []rlsCall{{Cluster: "rl", Domain: "tenants", Descriptors: []simDescriptor{{Entries: acme, HitsAddend: u64(2_000_000_000)}}}},
			envoy:      nil,
		},
		{
			name:       "cost fractional",
			config:     tenantsConfig,
			req:        testRequest{Method: "GET", Host: "a", Path: "/", DynamicMetadata: tenant(map[string]any{"cost": "7.9"})},
			descriptor: []rlsCall{{Cluster: "rl", Domain: "tenants", Descriptors: []simDescriptor{{Entries: acme, HitsAddend: u64(1)}}}},
			envoy:      []rlsCall{{Cluster: "rl", Domain: "tenants", Descriptors: []simDescriptor{{Entries: acme, HitsAddend: u64(7)}}}},
		},
		{
			name:   "override unit UNKNOWN",
			config: tenantsConfig,
			req: testRequest{Method: "GET", Host: "a", Path: "/", DynamicMetadata: tenant(map[string]any{
				"cost": 1.0, "limit": map[string]any{"requests_per_unit": 5.0, "unit": "UNKNOWN"}})},
			descriptor: []rlsCall{{Cluster: "rl", Domain: "tenants", Descriptors: []simDescriptor{{Entries: acme, HitsAddend: u64(1)}}}},
			envoy: []rlsCall{{Cluster: "rl", Domain: "tenants", Descriptors: []simDescriptor{{Entries: acme, HitsAddend: u64(1),
				Limit: &rlsmsg.Override{RequestsPerUnit: 5, Unit: rlsmsg.UnitUnknown}}}}},
		},
		{
			name:        "route metadata without Options.Route",
			config:      routeEntryConfig,
			req:         testRequest{Method: "GET", Host: "a", Path: "/", RouteMetadata: map[string]any{"rlpkit": map[string]any{"team": "toys"}}},
			noRouteHook: true,
			descriptor:  []rlsCall{{Cluster: "rl", Domain: "team", Descriptors: []simDescriptor{{Entries: []rlsmsg.Entry{{Key: "team", Value: "toys"}}}}}},
			envoy:       nil,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := parseConfig(t, tc.name, []byte(tc.config))
			engine, err := descriptor.Compile(cfg)
			if err != nil {
				t.Fatal(err)
			}
			got := wantCalls(engine, engine.Generate(tc.req.descriptorRequest()))
			if diff := cmp.Diff(tc.descriptor, got, ignoreFilterName); diff != "" {
				t.Errorf("descriptor's calls (-want +got):\n%s", diff)
			}
			var envoy []rlsCall
			if tc.noRouteHook {
				out, err := Translate(cfg, Options{})
				if err != nil {
					t.Fatal(err)
				}
				if envoy, err = simulate(out, tc.req.envoyRequest(t)); err != nil {
					t.Fatal(err)
				}
			} else {
				envoy = newChecker(t, cfg).envoy(t, &tc.req)
			}
			if diff := cmp.Diff(tc.envoy, envoy, ignoreFilterName); diff != "" {
				t.Errorf("Envoy's calls (-want +got):\n%s", diff)
			}
			out, err := Translate(cfg, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Caveats) == 0 {
				t.Errorf("Translate reported no caveat for a configuration on which Envoy differs")
			}
		})
	}
}

// TestKnownDifferencesStillDiffer keeps knownDifferences honest: every descriptor golden
// request it leaves out of the equivalence test must really be treated differently.
func TestKnownDifferencesStillDiffer(t *testing.T) {
	for key := range knownDifferences {
		dir, name, _ := strings.Cut(key, "/")
		base := filepath.Join("..", "descriptor", "testdata", "generate", dir)
		cfg := loadConfig(t, filepath.Join(base, "config.yaml"))
		engine, err := descriptor.Compile(cfg)
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(base, name+".request.json")
		var req testRequest
		decodeStrict(t, file, readFile(t, file), &req)
		want := wantCalls(engine, engine.Generate(req.descriptorRequest()))
		if cmp.Equal(want, newChecker(t, cfg).envoy(t, &req), ignoreFilterName) {
			t.Errorf("%s: Envoy and descriptor agree; remove it from knownDifferences", key)
		}
	}
}
