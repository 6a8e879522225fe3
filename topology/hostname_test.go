package topology

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestIntersectHostnames(t *testing.T) {
	tests := []struct {
		name     string
		listener string
		route    []string
		want     []string
	}{
		// The HTTPRoute hostnames documentation of Gateway API.
		{"both unset", "", nil, []string{"*"}},
		{"listener unset", "", []string{"foo.example.com", "*.bar.com"}, []string{"*.bar.com", "foo.example.com"}},
		{"route unset", "*.example.com", nil, []string{"*.example.com"}},
		{"listener wildcard, route exact and foreign", "*.example.com", []string{"test.example.com", "test.example.net"}, []string{"test.example.com"}},
		{"listener wildcard, route broader wildcard", "*.example.com", []string{"*.com"}, []string{"*.example.com"}},
		// The httproute-hostname-intersection conformance test.
		{"specific host matches listener specific host", "very.specific.com", []string{"non.matching.com", "*.nonmatchingwildcard.io", "very.specific.com"}, []string{"very.specific.com"}},
		{"specific hosts match listener wildcard", "*.wildcard.io", []string{"non.matching.com", "wildcard.io", "foo.wildcard.io", "bar.wildcard.io", "foo.bar.wildcard.io"}, []string{"bar.wildcard.io", "foo.bar.wildcard.io", "foo.wildcard.io"}},
		{"wildcard host matches listener specific host", "very.specific.com", []string{"non.matching.com", "*.specific.com"}, []string{"very.specific.com"}},
		{"wildcard host matches listener wildcard host", "*.anotherwildcard.io", []string{"*.anotherwildcard.io"}, []string{"*.anotherwildcard.io"}},
		{"no intersecting hosts (wildcard listener)", "*.wildcard.io", []string{"specific.but.wrong.com", "wildcard.io"}, nil},
		{"no intersecting hosts (specific listener)", "very.specific.com", []string{"specific.but.wrong.com", "wildcard.io"}, nil},
		// More.
		{"route wildcard narrower than listener wildcard", "*.example.com", []string{"*.a.example.com"}, []string{"*.a.example.com"}},
		{"wildcard does not cover its own suffix", "*.example.com", []string{"example.com"}, nil},
		{"wildcard does not cover a lookalike", "*.example.com", []string{"badexample.com"}, nil},
		{"duplicates collapse", "*.example.com", []string{"a.example.com", "a.example.com", "*.com"}, []string{"*.example.com", "a.example.com"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := IntersectHostnames(tc.listener, tc.route)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("IntersectHostnames(%q, %q) (-want +got):\n%s", tc.listener, tc.route, diff)
			}
		})
	}
}
