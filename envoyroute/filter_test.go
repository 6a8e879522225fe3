package envoyroute

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// values lists the generic_key values of each call, "domain: v1 v2".
func values(ev *Evaluation) []string {
	var out []string
	for _, c := range ev.Calls {
		s := c.Request.Domain + ":"
		for _, d := range c.Request.Descriptors {
			s += " " + d.Entries[0].Value
		}
		out = append(out, s)
	}
	return out
}

const perRoute = `"@type": type.googleapis.com/envoy.extensions.filters.http.ratelimit.v3.RateLimitPerRoute`

func TestApplicableRateLimits(t *testing.T) {
	c := load(t, `
virtual_hosts:
- name: vh
  domains: ["*"]
  rate_limits: [{actions: [{generic_key: {descriptor_value: vh}}]}]
  routes:
  - {match: {path: /none}, route: {cluster: a}}
  - {match: {path: /own}, route: {cluster: a, rate_limits: [{actions: [{generic_key: {descriptor_value: route}}]}]}}
  - {match: {path: /include}, route: {cluster: a, include_vh_rate_limits: true, rate_limits: [{actions: [{generic_key: {descriptor_value: route}}]}]}}
  - match: {path: /vh-include}
    route: {cluster: a, rate_limits: [{actions: [{generic_key: {descriptor_value: route}}]}]}
    typed_per_filter_config: {envoy.filters.http.ratelimit: {`+perRoute+`, vh_rate_limits: INCLUDE, domain: other}}
  - match: {path: /vh-ignore}
    route: {cluster: a}
    typed_per_filter_config: {envoy.filters.http.ratelimit: {`+perRoute+`, vh_rate_limits: IGNORE}}
  - match: {path: /per-route}
    route: {cluster: a, rate_limits: [{actions: [{generic_key: {descriptor_value: route}}]}]}
    typed_per_filter_config: {envoy.filters.http.ratelimit: {`+perRoute+`, rate_limits: [{actions: [{generic_key: {descriptor_value: per-route}}]}]}}
  - {match: {path: /stage}, route: {cluster: a, rate_limits: [{stage: 1, actions: [{generic_key: {descriptor_value: stage1}}]}, {actions: [{generic_key: {descriptor_value: stage0}}]}]}}
  - {match: {path: /done}, route: {cluster: a, rate_limits: [{apply_on_stream_done: true, actions: [{generic_key: {descriptor_value: done}}]}, {actions: [{generic_key: {descriptor_value: now}}]}]}}
`, Options{})
	tests := []struct {
		path string
		want []string
	}{
		{"/none", []string{"test: vh"}},
		{"/own", []string{"test: route"}},
		{"/include", []string{"test: route vh"}},
		{"/vh-include", []string{"other: route vh"}},
		{"/vh-ignore", nil},
		{"/per-route", []string{"test: per-route"}},
		{"/stage", []string{"test: stage0"}},
		{"/done", []string{"test: now"}},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			ev := c.Evaluate(&Request{Method: "GET", Authority: "a", Path: tc.path})
			if diff := cmp.Diff(tc.want, values(ev)); diff != "" {
				t.Errorf("calls (-want +got):\n%s\ntrace: %s", diff, strings.Join(ev.Trace, "\n"))
			}
		})
	}
	ev := c.Evaluate(&Request{Method: "GET", Authority: "a", Path: "/done"})
	if len(ev.Done) != 1 || ev.Done[0].Request.Descriptors[0].Entries[0].Value != "done" {
		t.Errorf("Done = %v, want the apply_on_stream_done descriptor", ev.Done)
	}
}

func TestFiltersAndDomains(t *testing.T) {
	c := load(t, `
route_configuration:
  virtual_hosts:
  - name: vh
    domains: ["*"]
    routes: [{match: {prefix: /}, route: {cluster: a, rate_limits: [{actions: [{generic_key: {descriptor_value: r}}]}]}}]
http_filters:
- {name: envoy.filters.http.router, typed_config: {"@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router}}
- {name: first, typed_config: {"@type": type.googleapis.com/envoy.extensions.filters.http.ratelimit.v3.RateLimit, domain: one}}
- {name: second, typed_config: {"@type": type.googleapis.com/envoy.extensions.filters.http.ratelimit.v3.RateLimit, domain: two, stage: 1}}
- {name: third, typed_config: {"@type": type.googleapis.com/envoy.extensions.filters.http.ratelimit.v3.RateLimit, domain: three, rate_limits: [{actions: [{generic_key: {descriptor_value: f}}]}]}}
`, Options{})
	got := values(c.Evaluate(&Request{Authority: "a", Path: "/"}))
	if diff := cmp.Diff([]string{"one: r", "three: f"}, got); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}

func TestRefused(t *testing.T) {
	tests := []struct {
		name, cfg, want string
	}{
		{"duplicate domain", `virtual_hosts: [{name: a, domains: [x.com]}, {name: b, domains: [X.com]}]`, `virtual_hosts[1].domains[0]: domain "x.com" is already`},
		{"bad regex", `virtual_hosts: [{name: a, domains: ["*"], routes: [{match: {safe_regex: {regex: "("}}, route: {cluster: a}}]}]`, `virtual_hosts[0].routes[0].match.safe_regex.regex: invalid regular expression`},
		{"runtime fraction", `virtual_hosts: [{name: a, domains: ["*"], routes: [{match: {prefix: /, runtime_fraction: {default_value: {numerator: 1}}}, route: {cluster: a}}]}]`, `virtual_hosts[0].routes[0].match.runtime_fraction: route matching on runtime_fraction is not modelled`},
		{"weighted destination", `virtual_hosts: [{name: a, domains: ["*"], routes: [{match: {prefix: /}, route: {weighted_clusters: {clusters: [{name: a, weight: 1}, {name: b, weight: 1}]}, rate_limits: [{actions: [{destination_cluster: {}}]}]}}]}]`, `actions[0].destination_cluster: the route's cluster is chosen at random`},
		{"format", `virtual_hosts: [{name: a, domains: ["*"], rate_limits: [{actions: [{remote_address: {}}], hits_addend: {format: "%REQ(x)%"}}]}]`, `virtual_hosts[0].rate_limits[0].hits_addend.format: format "%REQ(x)%": only`},
		{"path parameters", `{ignore_path_parameters_in_path_matching: true, virtual_hosts: []}`, `ignore_path_parameters_in_path_matching: removing path parameters`},
		{"unknown field", `virtual_hosts: [{name: a, domians: ["*"]}]`, `unknown field "domians"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(mustJSON(t, tc.cfg), Options{Domain: "d"})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Decode(%s) = %v, want an error containing %q", tc.cfg, err, tc.want)
			}
		})
	}
	if _, err := Decode(mustJSON(t, `virtual_hosts: []`), Options{}); err == nil || !strings.Contains(err.Error(), "no domain") {
		t.Errorf("Decode without filter nor domain = %v, want an error asking for the domain", err)
	}
}

// TestDecide: Decide makes Evaluate's calls, without trace and sources.
func TestDecide(t *testing.T) {
	c := load(t, routes, Options{})
	for _, path := range []string{"/exact", "/h", "/q?v=a+b", "/redirect", "/"} {
		req := Request{Method: "GET", Authority: "a", Path: path, Headers: map[string][]string{"x-a": {"yes"}}}
		ev, quick := c.Evaluate(&req), c.Decide(&req)
		if len(quick.Trace) != 0 {
			t.Errorf("Decide(%s).Trace = %q, want none", path, quick.Trace)
		}
		for i := range ev.Calls {
			ev.Calls[i].Sources = nil
		}
		if diff := cmp.Diff(ev.Calls, quick.Calls); diff != "" || ev.Route != quick.Route {
			t.Errorf("Decide(%s) differs from Evaluate (-Evaluate +Decide):\n%s", path, diff)
		}
	}
}
