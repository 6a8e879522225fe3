package envoyroute

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/rlsmsg"
	"github.com/rlpkit/rlpkit/yamljson"
)

// load decodes a YAML route configuration for tests.
func load(t *testing.T, y string, o Options) *Config {
	t.Helper()
	js, err := yamljson.ToJSON([]byte(y))
	if err != nil {
		t.Fatal(err)
	}
	if o.Domain == "" {
		o.Domain = "test"
	}
	c, err := Decode(js, o)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	return c
}

// hosts has one route per virtual host, each sending the generic key of its domain.
const hosts = `
virtual_hosts:
- {name: exact, domains: [www.example.com], routes: [{match: {prefix: /}, route: {cluster: a}}], rate_limits: [{actions: [{generic_key: {descriptor_value: exact}}]}]}
- {name: suffix-long, domains: ["*.api.example.com"], routes: [{match: {prefix: /}, route: {cluster: a}}], rate_limits: [{actions: [{generic_key: {descriptor_value: suffix-long}}]}]}
- {name: suffix, domains: ["*.example.com"], routes: [{match: {prefix: /}, route: {cluster: a}}], rate_limits: [{actions: [{generic_key: {descriptor_value: suffix}}]}]}
- {name: prefix, domains: ["example.*", "Mixed.Case"], routes: [{match: {prefix: /}, route: {cluster: a}}], rate_limits: [{actions: [{generic_key: {descriptor_value: prefix}}]}]}
- {name: any, domains: ["*"], routes: [{match: {prefix: /}, route: {cluster: a}}], rate_limits: [{actions: [{generic_key: {descriptor_value: any}}]}]}
`

func TestVirtualHostSelection(t *testing.T) {
	c := load(t, hosts, Options{})
	cp := load(t, "ignore_port_in_host_matching: true\n"+hosts, Options{})
	tests := []struct {
		name      string
		cfg       *Config
		authority string
		want      string
	}{
		{"exact before any wildcard", c, "www.example.com", "exact"},
		{"case-insensitive", c, "WWW.Example.COM", "exact"},
		{"longest suffix first", c, "v1.api.example.com", "suffix-long"},
		{"shorter suffix", c, "shop.example.com", "suffix"},
		{"a wildcard matches at least one character", c, "api.example.com", "suffix"},
		{"the bare suffix is not a suffix match", c, "example.com", "prefix"},
		{"suffix before prefix", c, "example.example.com", "suffix"},
		{"prefix wildcard", c, "example.org", "prefix"},
		{"domains are lower-cased", c, "mixed.case", "prefix"},
		{"a port is part of the host by default", c, "www.example.com:8080", "any"},
		{"ignore_port_in_host_matching", cp, "www.example.com:8080", "exact"},
		{"fallback", c, "other.org", "any"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ev := tc.cfg.Evaluate(&Request{Method: "GET", Authority: tc.authority, Path: "/"})
			if ev.VirtualHost != tc.want {
				t.Errorf("Evaluate(%q).VirtualHost = %q, want %q", tc.authority, ev.VirtualHost, tc.want)
			}
		})
	}
	none := load(t, "virtual_hosts: [{name: a, domains: [a.com], routes: [{match: {prefix: /}, route: {cluster: a}}]}]", Options{})
	if ev := none.Evaluate(&Request{Authority: "b.com", Path: "/"}); ev.Route != nil || len(ev.Calls) != 0 {
		t.Errorf("no virtual host: got route %v, calls %v", ev.Route, ev.Calls)
	}
}

// routes names each route; the first that matches wins.
const routes = `
virtual_hosts:
- name: vh
  domains: ["*"]
  routes:
  - {name: exact, match: {path: /exact}, route: {cluster: a}}
  - {name: insensitive, match: {path: /CI, case_sensitive: false}, route: {cluster: a}}
  - {name: separated, match: {path_separated_prefix: /sep}, route: {cluster: a}}
  - {name: regex, match: {safe_regex: {regex: "/re/[0-9]+"}}, route: {cluster: a}}
  - {name: grpc, match: {prefix: /pkg.Service/, grpc: {}}, route: {cluster: a}}
  - {name: hdr-exact, match: {prefix: /h, headers: [{name: x-a, string_match: {exact: yes}}]}, route: {cluster: a}}
  - {name: hdr-prefix, match: {prefix: /h, headers: [{name: x-a, string_match: {prefix: pre}}]}, route: {cluster: a}}
  - {name: hdr-suffix, match: {prefix: /h, headers: [{name: x-a, string_match: {suffix: suf, ignore_case: true}}]}, route: {cluster: a}}
  - {name: hdr-contains, match: {prefix: /h, headers: [{name: x-a, string_match: {contains: mid}}]}, route: {cluster: a}}
  - {name: hdr-present, match: {prefix: /h, headers: [{name: x-b, present_match: true}]}, route: {cluster: a}}
  - {name: hdr-absent, match: {prefix: /h, headers: [{name: x-c, present_match: false}]}, route: {cluster: a}}
  - {name: hdr-invert, match: {prefix: /i, headers: [{name: x-a, string_match: {exact: no}, invert_match: true}]}, route: {cluster: a}}
  - {name: hdr-range, match: {prefix: /r, headers: [{name: x-n, range_match: {start: 10, end: 20}}]}, route: {cluster: a}}
  - {name: query, match: {prefix: /q, query_parameters: [{name: v, string_match: {exact: "a b"}}]}, route: {cluster: a}}
  - {name: query-present, match: {prefix: /q, query_parameters: [{name: p, present_match: true}]}, route: {cluster: a}}
  - {name: query-absent, match: {prefix: /q, query_parameters: [{name: p, present_match: false}]}, route: {cluster: a}}
  - {name: redirect, match: {prefix: /redirect}, redirect: {path_redirect: /}}
  - {name: prefix, match: {prefix: /}, route: {cluster: a}}
`

func TestRouteMatch(t *testing.T) {
	c := load(t, routes, Options{})
	tests := []struct {
		name    string
		path    string
		headers map[string][]string
		want    string
	}{
		{"path ignores the query", "/exact?x=1", nil, "exact"},
		{"path is case-sensitive by default", "/EXACT", nil, "prefix"},
		{"case_sensitive false", "/ci", nil, "insensitive"},
		{"path_separated_prefix alone", "/sep", nil, "separated"},
		{"path_separated_prefix then /", "/sep/x", nil, "separated"},
		{"path_separated_prefix then ?", "/sep?x", nil, "separated"},
		{"path_separated_prefix is not a bare prefix", "/separate", nil, "prefix"},
		{"safe_regex matches the whole path", "/re/12", nil, "regex"},
		{"safe_regex is anchored", "/re/12/x", nil, "prefix"},
		{"grpc needs a grpc content-type", "/pkg.Service/M", map[string][]string{"content-type": {"application/grpc+proto"}}, "grpc"},
		{"not grpc", "/pkg.Service/M", map[string][]string{"content-type": {"application/json"}}, "prefix"},
		{"exact header", "/h", map[string][]string{"x-a": {"yes"}}, "hdr-exact"},
		{"repeated header values are joined with a comma", "/h", map[string][]string{"x-a": {"yes", "no"}}, "hdr-absent"},
		{"prefix header", "/h", map[string][]string{"x-a": {"prefix"}}, "hdr-prefix"},
		{"suffix header ignoring case", "/h", map[string][]string{"x-a": {"a-SUF"}}, "hdr-suffix"},
		{"contains header", "/h", map[string][]string{"x-a": {"a-mid-b"}}, "hdr-contains"},
		{"present header", "/h", map[string][]string{"x-b": {""}}, "hdr-present"},
		{"absent header matches present_match false", "/h", nil, "hdr-absent"},
		{"invert_match", "/i", map[string][]string{"x-a": {"yes"}}, "hdr-invert"},
		{"invert_match on an absent header does not match", "/i", nil, "prefix"},
		{"range start inclusive", "/r", map[string][]string{"x-n": {"10"}}, "hdr-range"},
		{"range end exclusive", "/r", map[string][]string{"x-n": {"20"}}, "prefix"},
		{"query value percent-decoded", "/q?v=a%20b", nil, "query"},
		{"query first value", "/q?v=x&v=a+b", nil, "query-absent"},
		{"query present", "/q?p", nil, "query-present"},
		{"redirect route", "/redirect", nil, "redirect"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ev := c.Evaluate(&Request{Method: "GET", Authority: "a", Path: tc.path, Headers: tc.headers})
			got := ev.Route.GetName()
			if got != tc.want {
				t.Errorf("Evaluate(%s %v) took route %q, want %q", tc.path, tc.headers, got, tc.want)
			}
		})
	}
	if ev := c.Evaluate(&Request{Authority: "a", Path: "/redirect"}); len(ev.Calls) != 0 {
		t.Errorf("a redirect route sends %v, want no call", ev.Calls)
	}
}

// descriptors of one route of a config with the given route rate_limits.
func descriptors(t *testing.T, rateLimits string, req Request, o Options) []rlsmsg.Descriptor {
	t.Helper()
	c := load(t, `
virtual_hosts:
- name: vh
  domains: ["*"]
  routes:
  - match: {prefix: /}
    route:
      cluster: backend
      rate_limits: `+rateLimits+`
    metadata: {filter_metadata: {route.ns: {tier: gold}}}
`, o)
	req.Authority, req.Method = "a", "GET"
	if req.Path == "" {
		req.Path = "/"
	}
	ev := c.Evaluate(&req)
	if len(ev.Calls) == 0 {
		return nil
	}
	return ev.Calls[0].Request.Descriptors
}

func entries(kv ...string) rlsmsg.Descriptor {
	d := rlsmsg.Descriptor{Entries: []rlsmsg.Entry{}}
	for i := 0; i < len(kv); i += 2 {
		d.Entries = append(d.Entries, rlsmsg.Entry{Key: kv[i], Value: kv[i+1]})
	}
	return d
}

func TestActions(t *testing.T) {
	md := descriptor.Metadata{"ns": map[string]any{"user": "alice", "n": 3.0, "cost": "7", "limit": map[string]any{"requests_per_unit": 5.0, "unit": "MINUTE"}}}
	five, seven := uint64(5), uint64(7)
	tests := []struct {
		name string
		rl   string
		req  Request
		want []rlsmsg.Descriptor
	}{
		{"source and destination cluster", `[{actions: [{source_cluster: {}}, {destination_cluster: {}}]}]`, Request{},
			[]rlsmsg.Descriptor{entries("source_cluster", "front", "destination_cluster", "backend")}},
		{"request header, first value", `[{actions: [{request_headers: {header_name: X-User, descriptor_key: user}}]}]`,
			Request{Headers: map[string][]string{"x-user": {"bob", "eve"}}}, []rlsmsg.Descriptor{entries("user", "bob")}},
		{"an absent header drops the descriptor", `[{actions: [{generic_key: {descriptor_value: v}}, {request_headers: {header_name: x-user, descriptor_key: user}}]}, {actions: [{generic_key: {descriptor_value: w}}]}]`,
			Request{}, []rlsmsg.Descriptor{entries("generic_key", "w")}},
		{"skip_if_absent appends nothing", `[{actions: [{generic_key: {descriptor_value: v}}, {request_headers: {header_name: x-user, descriptor_key: user, skip_if_absent: true}}]}]`,
			Request{}, []rlsmsg.Descriptor{entries("generic_key", "v")}},
		{"pseudo-header", `[{actions: [{request_headers: {header_name: ":path", descriptor_key: path}}]}]`, Request{Path: "/x?y"},
			[]rlsmsg.Descriptor{entries("path", "/x?y")}},
		{"remote address without port", `[{actions: [{remote_address: {}}]}]`, Request{RemoteAddress: "10.1.2.3:5555"},
			[]rlsmsg.Descriptor{entries("remote_address", "10.1.2.3")}},
		{"remote address not an IP", `[{actions: [{remote_address: {}}]}]`, Request{RemoteAddress: "/tmp/sock"}, nil},
		{"masked remote address", `[{actions: [{masked_remote_address: {v4_prefix_mask_len: 24, v6_prefix_mask_len: 64}}]}]`, Request{RemoteAddress: "10.1.2.3"},
			[]rlsmsg.Descriptor{entries("masked_remote_address", "10.1.2.0/24")}},
		{"masked IPv6 remote address", `[{actions: [{masked_remote_address: {v6_prefix_mask_len: 64}}]}]`, Request{RemoteAddress: "[2001:db8:1:2:3::4]:80"},
			[]rlsmsg.Descriptor{entries("masked_remote_address", "2001:db8:1:2::/64")}},
		{"default masks", `[{actions: [{masked_remote_address: {}}]}]`, Request{RemoteAddress: "10.1.2.3"},
			[]rlsmsg.Descriptor{entries("masked_remote_address", "10.1.2.3/32")}},
		{"header_value_match default key", `[{actions: [{header_value_match: {descriptor_value: admin, headers: [{name: ":method", string_match: {exact: GET}}]}}]}]`, Request{},
			[]rlsmsg.Descriptor{entries("header_match", "admin")}},
		{"header_value_match expect_match false", `[{actions: [{header_value_match: {descriptor_key: k, descriptor_value: v, expect_match: false, headers: [{name: ":method", string_match: {exact: GET}}]}}]}]`, Request{}, nil},
		{"query_parameters", `[{actions: [{query_parameters: {query_parameter_name: page, descriptor_key: p}}]}]`, Request{Path: "/?page=2&page=3"},
			[]rlsmsg.Descriptor{entries("p", "2")}},
		{"query_parameter_value_match", `[{actions: [{query_parameter_value_match: {descriptor_value: big, query_parameters: [{name: size, string_match: {exact: big}}]}}]}]`, Request{Path: "/?size=big"},
			[]rlsmsg.Descriptor{entries("query_match", "big")}},
		{"dynamic metadata", `[{actions: [{metadata: {descriptor_key: u, metadata_key: {key: ns, path: [{key: user}]}}}]}]`, Request{Metadata: md},
			[]rlsmsg.Descriptor{entries("u", "alice")}},
		{"metadata that is not a string: default value", `[{actions: [{metadata: {descriptor_key: u, default_value: none, metadata_key: {key: ns, path: [{key: n}]}}}]}]`, Request{Metadata: md},
			[]rlsmsg.Descriptor{entries("u", "none")}},
		{"absent metadata drops the descriptor", `[{actions: [{metadata: {descriptor_key: u, metadata_key: {key: ns, path: [{key: nope}]}}}]}]`, Request{Metadata: md}, nil},
		{"route entry metadata", `[{actions: [{metadata: {descriptor_key: tier, source: ROUTE_ENTRY, metadata_key: {key: route.ns, path: [{key: tier}]}}}]}]`, Request{},
			[]rlsmsg.Descriptor{entries("tier", "gold")}},
		{"limit override from metadata", `[{actions: [{generic_key: {descriptor_value: v}}], limit: {dynamic_metadata: {metadata_key: {key: ns, path: [{key: limit}]}}}}]`, Request{Metadata: md},
			[]rlsmsg.Descriptor{{Entries: []rlsmsg.Entry{{Key: "generic_key", Value: "v"}}, Limit: &rlsmsg.Override{RequestsPerUnit: 5, Unit: rlsmsg.UnitMinute}}}},
		{"hits_addend number", `[{actions: [{generic_key: {descriptor_value: v}}], hits_addend: {number: 5}}]`, Request{},
			[]rlsmsg.Descriptor{{Entries: []rlsmsg.Entry{{Key: "generic_key", Value: "v"}}, HitsAddend: &five}}},
		{"hits_addend from metadata string", `[{actions: [{generic_key: {descriptor_value: v}}], hits_addend: {format: "%DYNAMIC_METADATA(ns:cost)%"}}]`, Request{Metadata: md},
			[]rlsmsg.Descriptor{{Entries: []rlsmsg.Entry{{Key: "generic_key", Value: "v"}}, HitsAddend: &seven}}},
		{"an invalid cost drops the descriptor", `[{actions: [{generic_key: {descriptor_value: v}}], hits_addend: {format: "%DYNAMIC_METADATA(ns:user)%"}}]`, Request{Metadata: md}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := descriptors(t, tc.rl, tc.req, Options{SourceCluster: "front"})
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("descriptors (-want +got):\n%s", diff)
			}
		})
	}
}

func mustJSON(t *testing.T, y string) []byte {
	t.Helper()
	js, err := yamljson.ToJSON([]byte(y))
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// TestClusterHeader: destination_cluster reads the cluster header; without it Envoy finds no
// cluster and the rate-limit filter does nothing.
func TestClusterHeader(t *testing.T) {
	c := load(t, `virtual_hosts: [{name: a, domains: ["*"], routes: [{match: {prefix: /}, route: {cluster_header: x-cluster, rate_limits: [{actions: [{destination_cluster: {}}]}, {actions: [{generic_key: {descriptor_value: v}}]}]}}]}]`, Options{})
	ev := c.Evaluate(&Request{Authority: "a", Path: "/", Headers: map[string][]string{"x-cluster": {"blue"}}})
	want := []rlsmsg.Descriptor{entries("destination_cluster", "blue"), entries("generic_key", "v")}
	if len(ev.Calls) != 1 || !cmp.Equal(want, ev.Calls[0].Request.Descriptors) {
		t.Errorf("with the cluster header: calls %+v, want one with %v", ev.Calls, want)
	}
	if ev := c.Evaluate(&Request{Authority: "a", Path: "/"}); len(ev.Calls) != 0 {
		t.Errorf("without the cluster header: calls %+v, want none", ev.Calls)
	}
}

// TestRequireTLS: a virtual host with require_tls redirects plain requests (no rate
// limit) and rate-limits https ones.
func TestRequireTLS(t *testing.T) {
	c := load(t, `virtual_hosts: [{name: a, domains: ["*"], require_tls: ALL, rate_limits: [{actions: [{generic_key: {descriptor_value: v}}]}], routes: [{match: {prefix: /}, route: {cluster: a}}]}]`, Options{})
	if ev := c.Evaluate(&Request{Scheme: "http", Authority: "a", Path: "/"}); len(ev.Calls) != 0 {
		t.Errorf("http: calls %+v, want none (redirected)", ev.Calls)
	}
	if ev := c.Evaluate(&Request{Scheme: "https", Authority: "a", Path: "/"}); len(ev.Calls) != 1 {
		t.Errorf("https: calls %+v, want one", ev.Calls)
	}
	if ev := c.Evaluate(&Request{Scheme: "https", Authority: "a", Path: "/", Headers: map[string][]string{"x-forwarded-proto": {"http"}}}); len(ev.Calls) != 0 {
		t.Errorf("x-forwarded-proto http: calls %+v, want none (redirected)", ev.Calls)
	}
	if ev := c.Evaluate(&Request{Authority: "a", Path: "/"}); len(ev.Calls) != 1 {
		t.Errorf("no scheme known: calls %+v, want one", ev.Calls)
	}
}
