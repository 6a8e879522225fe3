package envoyxds

import (
	"testing"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	"google.golang.org/protobuf/types/known/structpb"
)

// TestSimulatorVirtualHosts pins down Envoy's choice of virtual host, as RouteMatcher makes
// it: exact domains first, then "*." suffixes from the longest (never the suffix itself),
// then "*"; the host lower-cased, its port ignored only when the route configuration says
// so.
func TestSimulatorVirtualHosts(t *testing.T) {
	vhs := []*routev3.VirtualHost{
		{Name: "exact", Domains: []string{"api.example.com"}},
		{Name: "long", Domains: []string{"*.api.example.com"}},
		{Name: "short", Domains: []string{"*.example.com"}},
		{Name: "prefix", Domains: []string{"www.*"}},
		{Name: "star", Domains: []string{"*"}},
	}
	tests := []struct {
		authority  string
		ignorePort bool
		want       string
	}{
		{"api.example.com", false, "exact"},
		{"API.Example.COM", false, "exact"},
		{"a.api.example.com", false, "long"},
		{"a.b.example.com", false, "short"},
		{"example.com", false, "star"},
		{"www.other.org", false, "prefix"},
		{"api.example.com:8080", false, "star"},
		{"api.example.com:8080", true, "exact"},
		{"[::1]:8080", true, "star"},
		{"api.example.com.", true, "star"},
	}
	for _, tc := range tests {
		rc := &routev3.RouteConfiguration{VirtualHosts: vhs, IgnorePortInHostMatching: tc.ignorePort}
		vh, err := findVirtualHost(rc, tc.authority)
		if err != nil || vh.GetName() != tc.want {
			t.Errorf("findVirtualHost(%q, ignore port %v) = %q, %v; want %q", tc.authority, tc.ignorePort, vh.GetName(), err, tc.want)
		}
	}
}

// TestSimulatorHeaderMatcher pins down Envoy's HeaderMatcher on absent and repeated headers.
func TestSimulatorHeaderMatcher(t *testing.T) {
	present := func(p, invert bool) *routev3.HeaderMatcher {
		return &routev3.HeaderMatcher{Name: "x", InvertMatch: invert, HeaderMatchSpecifier: &routev3.HeaderMatcher_PresentMatch{PresentMatch: p}}
	}
	exactX := func(v string, invert bool) *routev3.HeaderMatcher {
		return &routev3.HeaderMatcher{Name: "x", InvertMatch: invert, HeaderMatchSpecifier: stringMatch(exact(v))}
	}
	tests := []struct {
		name    string
		m       *routev3.HeaderMatcher
		headers map[string][]string
		want    bool
	}{
		{"absent, present_match true", present(true, false), nil, false},
		{"absent, present_match false", present(false, false), nil, true},
		{"absent, present_match true inverted", present(true, true), nil, true},
		{"absent, present_match false inverted", present(false, true), nil, false},
		{"absent, exact inverted", exactX("a", true), nil, false},
		{"present, exact inverted", exactX("a", true), map[string][]string{"x": {"b"}}, true},
		{"repeated, joined", exactX("a,b", false), map[string][]string{"x": {"a", "b"}}, true},
		{"repeated, not the first value", exactX("a", false), map[string][]string{"x": {"a", "b"}}, false},
		{"empty value is present", present(true, false), map[string][]string{"x": {""}}, true},
	}
	for _, tc := range tests {
		got, err := headerMatches(tc.m, &envoyRequest{headers: tc.headers})
		if err != nil || got != tc.want {
			t.Errorf("%s: headerMatches() = %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
}

// TestSimulatorHitsAddend pins down Envoy's cost read through a format: a number or numeric
// string from 0 to 1e9, truncated; anything else drops the descriptor.
func TestSimulatorHitsAddend(t *testing.T) {
	tests := []struct {
		value any // nil: absent
		want  uint64
		valid bool
	}{
		{4.0, 4, true},
		{"12", 12, true},
		{1.9, 1, true},
		{" 7 ", 7, true},
		{0.0, 0, true},
		{1e9, 1e9, true},
		{1e9 + 1, 0, false},
		{-1.0, 0, false},
		{"abc", 0, false},
		{true, 0, false},
		{map[string]any{"n": 1.0}, 0, false},
		{nil, 0, false},
	}
	for _, tc := range tests {
		req := &envoyRequest{}
		if tc.value != nil {
			s, err := structpb.NewStruct(map[string]any{"cost": tc.value})
			if err != nil {
				t.Fatal(err)
			}
			req.dynamic = map[string]*structpb.Struct{"ns": s}
		}
		got, valid, err := formatHits("%DYNAMIC_METADATA(ns:cost)%", req)
		if err != nil || got != tc.want || valid != tc.valid {
			t.Errorf("formatHits(cost %v) = %d, %v, %v; want %d, %v", tc.value, got, valid, err, tc.want, tc.valid)
		}
	}
}
