package envoyxds

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	ratelimitv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ratelimit/v3"
	"github.com/google/go-cmp/cmp"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/fielderr"
)

// TestTranslateRefuses lists what Translate refuses, with the field it names.
func TestTranslateRefuses(t *testing.T) {
	tests := []struct {
		name   string
		config string
		opts   Options
		want   []string // the message of each refusal, in order
	}{
		{
			name: "invalid PluginConfig",
			config: `
rateLimitPolicies:
- rateLimitDomain: ""
  upstreamCluster: rl
  hostnames: ["*"]`,
			want: []string{"envoyxds: rateLimitPolicies[0].rateLimitDomain: invalid PluginConfig: required"},
		},
		{
			name: "cost above Envoy's maximum",
			config: `
rateLimitPolicies:
- rateLimitDomain: d
  upstreamCluster: rl
  hostnames: ["*"]
  gatewayActions:
  - configurations:
    - actions: [{generic_key: {descriptor_value: v}}]
      hits_addend: {number: 1000000001}`,
			want: []string{"envoyxds: rateLimitPolicies[0].gatewayActions[0].configurations[0].hits_addend.number: cost 1000000001 is more than 1000000000, the most Envoy accepts"},
		},
		{
			name: "cost metadata keys the format cannot name",
			config: `
rateLimitPolicies:
- rateLimitDomain: d
  upstreamCluster: rl
  hostnames: ["*"]
  gatewayActions:
  - configurations:
    - actions: [{generic_key: {descriptor_value: v}}]
      hits_addend: {dynamic_metadata: {metadata_key: {key: "ns:x", path: [{key: ok}, {key: "a)b"}]}}}`,
			want: []string{
				`envoyxds: rateLimitPolicies[0].gatewayActions[0].configurations[0].hits_addend.dynamic_metadata.metadata_key.key: Envoy's %DYNAMIC_METADATA(...)% format cannot name "ns:x": it holds ":"`,
				`envoyxds: rateLimitPolicies[0].gatewayActions[0].configurations[0].hits_addend.dynamic_metadata.metadata_key.path[1].key: Envoy's %DYNAMIC_METADATA(...)% format cannot name "a)b": it holds ")"`,
			},
		},
		{
			name: "too many routes",
			config: `
rateLimitPolicies:
- name: p
  rateLimitDomain: d
  upstreamCluster: rl
  hostnames: ["a.example.com"]
  gatewayActions:
  - rules: [{methods: [GET]}, {paths: ["/a"]}]
    configurations: [{actions: [{generic_key: {descriptor_value: one}}]}]
  - rules: [{methods: [GET]}, {paths: ["/b"]}]
    configurations: [{actions: [{generic_key: {descriptor_value: two}}]}]`,
			opts: Options{MaxRoutes: 3},
			want: []string{`envoyxds: rateLimitPolicies[0]: in the virtual host of "a.example.com" its rules need more than 3 routes (Options.MaxRoutes): ` +
				`every set of gateway actions whose rules can match one request together needs routes of its own`},
		},
		{
			name: "caveats under Options.Strict",
			config: `
rateLimitPolicies:
- rateLimitDomain: d
  upstreamCluster: rl
  hostnames: ["*"]
  gatewayActions:
  - configurations:
    - actions: [{remote_address: {}}]
      hits_addend: {dynamic_metadata: {metadata_key: {key: t, path: [{key: cost}]}}}`,
			opts: Options{Strict: true},
			want: []string{`envoyxds: rateLimitPolicies[0].gatewayActions[0].configurations[0].hits_addend.dynamic_metadata: refused by Options.Strict: ` +
				`Envoy drops the descriptor when the cost in dynamic metadata is absent, or is not a number (or a string holding one) from 0 to 1000000000, ` +
				`where descriptor sends it with cost 1; and Envoy truncates a fractional cost, where descriptor charges 1`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := parseConfig(t, tc.name, []byte(tc.config))
			out, err := Translate(cfg, tc.opts)
			var list fielderr.List
			if !errors.As(err, &list) {
				t.Fatalf("Translate() = %v, %v; want fielderr.List", out, err)
			}
			var got []string
			for _, e := range list {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Translate() errors (-want +got):\n%s", diff)
			}
			if err.Error() != strings.Join(tc.want, "\n") {
				t.Errorf("Translate() error text = %q, want the refusals one per line", err.Error())
			}
		})
	}
}

func TestTranslateNil(t *testing.T) {
	out, err := Translate(nil, Options{})
	if err == nil || err.Error() != "envoyxds: no PluginConfig" {
		t.Errorf("Translate(nil) = %v, %v; want envoyxds: no PluginConfig", out, err)
	}
}

func TestTranslateEmpty(t *testing.T) {
	out, err := Translate(&descriptor.PluginConfig{}, Options{RouteConfigName: "edge"})
	if err != nil {
		t.Fatalf("Translate(empty) = %v", err)
	}
	got, err := out.Render()
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"route_configuration\": {\n    \"name\": \"edge\",\n    \"ignore_port_in_host_matching\": true\n  },\n  \"http_filters\": []\n}\n"
	if string(got) != want {
		t.Errorf("Render() = %q, want %q", got, want)
	}
}

const twoRulesConfig = `
rateLimitPolicies:
- name: p
  rateLimitDomain: d
  upstreamCluster: rl
  hostnames: ["a.example.com"]
  routeMatches: [{path: {type: PathPrefix, value: /app}}]
  gatewayActions:
  - rules: [{paths: ["/app/admin/*"]}]
    configurations: [{actions: [{generic_key: {descriptor_value: admin}}]}]
  - rules: [{paths: ["/app/admin/*"]}]
    configurations: [{actions: [{generic_key: {descriptor_value: admin-too}}]}]
  - rules: [{methods: [POST]}]
    configurations: [{actions: [{generic_key: {descriptor_value: post}}]}]
`

// routeSummary is a route as the tests below check it: its match, written briefly, and the
// descriptor values of its rate limits' first actions.
func routeSummary(t *testing.T, r *routev3.Route) string {
	t.Helper()
	m := r.Match
	s := fmt.Sprintf("%s%s%s", m.GetPrefix(), m.GetPath(), m.GetPathSeparatedPrefix())
	switch m.PathSpecifier.(type) {
	case *routev3.RouteMatch_Prefix:
		s = "prefix " + s
	case *routev3.RouteMatch_Path:
		s = "path " + s
	case *routev3.RouteMatch_PathSeparatedPrefix:
		s = "segments " + s
	}
	for _, h := range m.Headers {
		s += " " + h.Name + "=" + h.GetStringMatch().GetExact()
	}
	s += " ->"
	for _, a := range r.TypedPerFilterConfig {
		prl := new(ratelimitv3.RateLimitPerRoute)
		if err := a.UnmarshalTo(prl); err != nil {
			t.Fatal(err)
		}
		for _, rl := range prl.RateLimits {
			s += " " + rl.Actions[0].GetGenericKey().GetDescriptorValue()
		}
	}
	return s
}

// TestRouteOrder checks the routes of a policy whose gateway actions' rules overlap: the
// actions with the same rules share routes, the largest sets come first, and routes an
// earlier one shadows are left out.
func TestRouteOrder(t *testing.T) {
	out, err := Translate(parseConfig(t, "two rules", []byte(twoRulesConfig)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range out.RouteConfiguration.VirtualHosts[0].Routes {
		got = append(got, routeSummary(t, r))
	}
	want := []string{
		"prefix /app/admin/ :method=POST -> admin admin-too post",
		"prefix /app/admin/ -> admin admin-too",
		"segments /app :method=POST -> post",
		"segments /app ->",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("routes (-want +got):\n%s", diff)
	}
}

// TestRoutesScale checks that the number of routes follows the sets of actions that can
// apply to a request, not all sets: 40 actions on 40 different paths, or on 40 nested
// prefixes, need 41 routes, not 2^40.
func TestRoutesScale(t *testing.T) {
	tests := []struct {
		name string
		path func(i int) string
	}{
		{"disjoint paths", func(i int) string { return fmt.Sprintf("/p%d", i) }},
		{"nested prefixes", func(i int) string { return strings.Repeat("/a", i+1) + "/*" }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := &descriptor.PluginConfig{RateLimitPolicies: []descriptor.Policy{{
				RateLimitDomain: "d", UpstreamCluster: "rl", Hostnames: []string{"*"},
			}}}
			for i := range 40 {
				cfg.RateLimitPolicies[0].GatewayActions = append(cfg.RateLimitPolicies[0].GatewayActions, descriptor.GatewayAction{
					Rules:          []descriptor.Rule{{Paths: []string{tc.path(i)}}},
					Configurations: []descriptor.Configuration{{Actions: []descriptor.Action{{GenericKey: &descriptor.GenericKey{DescriptorValue: "v"}}}}},
				})
			}
			out, err := Translate(cfg, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(out.RouteConfiguration.VirtualHosts[0].Routes); got != 41 {
				t.Errorf("Translate(40 actions, %s) has %d routes, want 41", tc.name, got)
			}
		})
	}
}

// TestTranslateBoundsWork checks that rules with many (path, method) pairs are refused
// rather than combined: 100 paths times 50 methods is more than DefaultMaxRoutes.
func TestTranslateBoundsWork(t *testing.T) {
	rule := descriptor.Rule{}
	for i := range 100 {
		rule.Paths = append(rule.Paths, fmt.Sprintf("/p%d", i))
	}
	for i := range 50 {
		rule.Methods = append(rule.Methods, fmt.Sprintf("M%d", i))
	}
	cfg := &descriptor.PluginConfig{RateLimitPolicies: []descriptor.Policy{{
		RateLimitDomain: "d", UpstreamCluster: "rl", Hostnames: []string{"*"},
		GatewayActions: []descriptor.GatewayAction{{
			Rules:          []descriptor.Rule{rule},
			Configurations: []descriptor.Configuration{{Actions: []descriptor.Action{{RemoteAddress: &descriptor.RemoteAddress{}}}}},
		}},
	}}}
	out, err := Translate(cfg, Options{})
	var list fielderr.List
	if !errors.As(err, &list) || len(list) != 1 || !strings.Contains(list[0].Detail, "more than 4096 routes") {
		t.Errorf("Translate(100 paths x 50 methods) = %v, %v; want a refusal naming the 4096 routes limit", out, err)
	}
}

func TestRouteHook(t *testing.T) {
	cfg := parseConfig(t, "two rules", []byte(twoRulesConfig))
	t.Run("sets the action", func(t *testing.T) {
		var policies []int
		out, err := Translate(cfg, Options{Route: func(policy int, r *routev3.Route) error {
			policies = append(policies, policy)
			r.Action = &routev3.Route_Route{Route: DefaultRoute("backend")}
			return nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range out.RouteConfiguration.VirtualHosts[0].Routes {
			if got := r.GetRoute().GetCluster(); got != "backend" {
				t.Errorf("route %q forwards to %q, want backend", r.Name, got)
			}
		}
		if diff := cmp.Diff([]int{0, 0, 0, 0}, policies); diff != "" {
			t.Errorf("Options.Route calls (-want +got):\n%s", diff)
		}
	})
	tests := []struct {
		name string
		hook func(int, *routev3.Route) error
		want string
	}{
		{"fails", func(int, *routev3.Route) error { return errors.New("no backend") },
			`envoyxds: Options.Route(0, route "p#0"): no backend`},
		{"removes the route action", func(_ int, r *routev3.Route) error {
			r.Action = &routev3.Route_DirectResponse{DirectResponse: &routev3.DirectResponseAction{Status: 200}}
			return nil
		}, `envoyxds: Options.Route(0, route "p#0") left the route without a route action; Envoy's rate-limit filter ignores such routes`},
		{"makes the route invalid", func(_ int, r *routev3.Route) error {
			r.Action = &routev3.Route_Route{Route: DefaultRoute("")}
			return nil
		}, "envoyxds: the generated RouteConfiguration is invalid: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Translate(cfg, Options{Route: tc.hook})
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("Translate() = %v, %v; want an error starting %q", out, err, tc.want)
			}
		})
	}
}

// TestStrictWithoutCaveats checks that Options.Strict changes nothing for a configuration
// Envoy expresses exactly.
func TestStrictWithoutCaveats(t *testing.T) {
	cfg := parseConfig(t, "two rules", []byte(twoRulesConfig))
	strict, err := Translate(cfg, Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	lax, err := Translate(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := strict.Render()
	b, _ := lax.Render()
	if string(a) != string(b) || len(strict.Caveats) != 0 {
		t.Errorf("Translate(Strict) differs from Translate() or has caveats %v", strict.Caveats)
	}
}

// TestFilterNames checks one filter per upstream cluster and the names they get.
func TestFilterNames(t *testing.T) {
	tests := []struct {
		name     string
		clusters []string
		want     []string
	}{
		{"one cluster", []string{"rl", "rl"}, []string{"envoy.filters.http.ratelimit"}},
		{"two clusters", []string{"a", "b", "a"}, []string{"envoy.filters.http.ratelimit/a", "envoy.filters.http.ratelimit/b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := &descriptor.PluginConfig{}
			for i, c := range tc.clusters {
				cfg.RateLimitPolicies = append(cfg.RateLimitPolicies, descriptor.Policy{
					RateLimitDomain: fmt.Sprint("d", i), UpstreamCluster: c, Hostnames: []string{fmt.Sprintf("h%d.example", i)},
				})
			}
			out, err := Translate(cfg, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range out.HTTPFilters {
				got = append(got, f.Name)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("filters (-want +got):\n%s", diff)
			}
		})
	}
}
