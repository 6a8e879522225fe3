package hostindex

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// build returns an Index holding each pattern with the pattern itself as its value.
func build(t *testing.T, patterns ...string) *Index[string] {
	t.Helper()
	ix := New[string]()
	for _, p := range patterns {
		if err := ix.Add(p, p); err != nil {
			t.Fatalf("Add(%q) = %v, want nil", p, err)
		}
	}
	return ix
}

// walk returns the patterns Walk visits for host, in order.
func walk[V any](ix *Index[V], host string) []string {
	var got []string
	ix.Walk(host, func(m Match[V]) bool {
		got = append(got, m.Pattern)
		return true
	})
	return got
}

func TestLookup(t *testing.T) {
	long := strings.Repeat("x", 64)
	tests := []struct {
		name     string
		patterns []string
		host     string
		want     string // "" for no match
	}{
		{"exact matches itself", []string{"example.com"}, "example.com", "example.com"},
		{"exact does not match a subdomain", []string{"example.com"}, "test.example.com", ""},
		{"exact does not match its parent", []string{"test.example.com"}, "example.com", ""},
		{"wildcard matches one label", []string{"*.example.com"}, "a.example.com", "*.example.com"},
		{"wildcard matches two labels", []string{"*.example.com"}, "a.b.example.com", "*.example.com"},
		{"wildcard does not match its apex", []string{"*.example.com"}, "example.com", ""},
		{"wildcard does not match a longer label", []string{"*.example.com"}, "badexample.com", ""},
		{"wildcard does not match an empty label", []string{"*.example.com"}, ".example.com", ""},
		{"longer wildcard wins", []string{"*.com", "*.example.com"}, "test.example.com", "*.example.com"},
		{"shorter wildcard as fallback", []string{"*.com", "*.example.com"}, "example.com", "*.com"},
		{"exact beats wildcard", []string{"*.example.com", "api.example.com"}, "api.example.com", "api.example.com"},
		{"exact beats star", []string{"*", "api.example.com"}, "api.example.com", "api.example.com"},
		{"wildcard beats star", []string{"*", "*.example.com"}, "api.example.com", "*.example.com"},
		{"star matches any name", []string{"*"}, "anything.at.all", "*"},
		{"star matches an empty host", []string{"*"}, "", "*"},
		{"star matches an IPv4 host", []string{"*"}, "10.0.0.1:80", "*"},
		{"star matches an IPv6 host", []string{"*"}, "[::1]:8080", "*"},
		{"star matches a malformed host", []string{"*", "example.com"}, "a..b:x:y", "*"},
		{"host case and port are normalised", []string{"foo.example.com"}, "Foo.Example.COM:8443", "foo.example.com"},
		{"pattern case and dot are normalised", []string{"FOO.Example.com."}, "foo.example.com", "foo.example.com"},
		{"upper-case host under a wildcard", []string{"*.example.com"}, "WWW.EXAMPLE.COM", "*.example.com"},
		{"IPv6 host with brackets and port", []string{"*.example.com"}, "[::1]:8080", ""},
		{"IPv4 exact with port", []string{"10.0.0.1"}, "10.0.0.1:8080", "10.0.0.1"},
		{"trailing dot", []string{"example.com"}, "example.com.", "example.com"},
		{"trailing dot and port", []string{"example.com"}, "example.com.:443", "example.com"},
		{"two trailing dots", []string{"example.com"}, "example.com..", ""},
		{"non-numeric port is not stripped", []string{"example.com"}, "example.com:http", ""},
		{"over-long label under a wildcard", []string{"*.example.com"}, long + ".example.com", "*.example.com"},
		{"empty label under a wildcard", []string{"*.example.com"}, "a..example.com", "*.example.com"},
		{"non-ASCII label under a wildcard", []string{"*.example.com"}, "\xc3\x89t\xc3\xa9.example.com", "*.example.com"},
		{"empty index", nil, "example.com", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var ix *Index[string]
			if tc.patterns != nil {
				ix = build(t, tc.patterns...)
			} else {
				ix = New[string]()
			}
			m, ok := ix.Lookup(tc.host)
			if ok != (tc.want != "") || m.Pattern != tc.want {
				t.Errorf("Lookup(%q) = %q, %v, want %q, %v", tc.host, m.Pattern, ok, tc.want, tc.want != "")
			}
		})
	}
}

func TestWalk(t *testing.T) {
	// Added in no particular order: Walk orders by specificity, not insertion.
	ix := build(t, "*.com", "*", "api.example.com", "*.example.com", "*.api.example.com", "example.com", "other.org")
	tests := []struct {
		name string
		host string
		want []string
	}{
		{"exact, two wildcards and star", "api.example.com", []string{"api.example.com", "*.example.com", "*.com", "*"}},
		{"three wildcards and star", "v1.API.example.com:443", []string{"*.api.example.com", "*.example.com", "*.com", "*"}},
		{"apex of a wildcard", "example.com", []string{"example.com", "*.com", "*"}},
		{"exact without wildcards", "other.org", []string{"other.org", "*"}},
		{"only star", "example.net", []string{"*"}},
		{"empty host", "", []string{"*"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, walk(ix, tc.host)); diff != "" {
				t.Errorf("Walk(%q) patterns mismatch (-want +got):\n%s", tc.host, diff)
			}
			m, ok := ix.Lookup(tc.host)
			if !ok || m.Pattern != tc.want[0] {
				t.Errorf("Lookup(%q) = %q, %v, want %q, true", tc.host, m.Pattern, ok, tc.want[0])
			}
		})
	}
}

func TestWalkStops(t *testing.T) {
	ix := build(t, "*", "*.com", "*.example.com", "api.example.com")
	all := []string{"api.example.com", "*.example.com", "*.com", "*"}
	for k := 1; k <= len(all); k++ {
		t.Run(fmt.Sprint(k), func(t *testing.T) {
			var got []string
			ix.Walk("api.example.com", func(m Match[string]) bool {
				got = append(got, m.Pattern)
				return len(got) < k
			})
			if diff := cmp.Diff(all[:k], got); diff != "" {
				t.Errorf("Walk stopping after %d calls mismatch (-want +got):\n%s", k, diff)
			}
		})
	}
}

func TestValuesKeepInsertionOrder(t *testing.T) {
	ix := New[int]()
	adds := []struct {
		pattern string
		v       int
	}{
		{"api.example.com", 1}, {"*.example.com", 10}, {"API.example.com.", 2},
		{"*.EXAMPLE.com", 20}, {"api.example.com", 3}, {"*", 100},
	}
	for _, a := range adds {
		if err := ix.Add(a.pattern, a.v); err != nil {
			t.Fatalf("Add(%q, %d) = %v, want nil", a.pattern, a.v, err)
		}
	}
	var got []Match[int]
	ix.Walk("api.example.com", func(m Match[int]) bool {
		got = append(got, m)
		return true
	})
	want := []Match[int]{
		{Pattern: "api.example.com", Values: []int{1, 2, 3}},
		{Pattern: "*.example.com", Values: []int{10, 20}},
		{Pattern: "*", Values: []int{100}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Walk(%q) mismatch (-want +got):\n%s", "api.example.com", diff)
	}
	if got, want := ix.Len(), 3; got != want {
		t.Errorf("Len() = %d, want %d", got, want)
	}
}

func TestAppendToValuesLeavesIndexAlone(t *testing.T) {
	ix := New[int]()
	for v := range 3 { // a capacity of 4 leaves room after the third value
		if err := ix.Add("example.com", v); err != nil {
			t.Fatalf("Add(%q, %d) = %v, want nil", "example.com", v, err)
		}
	}
	m, _ := ix.Lookup("example.com")
	_ = append(m.Values, 99)
	if err := ix.Add("example.com", 3); err != nil {
		t.Fatalf("Add(%q, 3) = %v, want nil", "example.com", err)
	}
	got, _ := ix.Lookup("example.com")
	if diff := cmp.Diff([]int{0, 1, 2, 3}, got.Values); diff != "" {
		t.Errorf("Lookup(%q).Values mismatch (-want +got):\n%s", "example.com", diff)
	}
}

func TestLen(t *testing.T) {
	tests := []struct {
		name     string
		patterns []string
		want     int
	}{
		{"empty", nil, 0},
		{"normalised duplicates count once", []string{"a.com", "A.COM", "a.com.", "*.a.com", "*.A.com", "*", "*."}, 3},
		{"exact and wildcard on one suffix", []string{"example.com", "*.example.com"}, 2},
		{"invalid patterns are not counted", []string{"a.com", "a*.com", "", "b.com"}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ix := New[int]()
			for _, p := range tc.patterns {
				_ = ix.Add(p, 0) // errors are tested in TestAddErrors
			}
			if got := ix.Len(); got != tc.want {
				t.Errorf("Len() after adding %q = %d, want %d", tc.patterns, got, tc.want)
			}
		})
	}
}

func TestAddErrors(t *testing.T) {
	ix := New[int]()
	for _, p := range []string{"", "a*.example.com", "example.com:80", "-a.com"} {
		err := ix.Add(p, 1)
		want := ValidatePattern(p)
		if err == nil || want == nil || err.Error() != want.Error() {
			t.Errorf("Add(%q) = %v, want %v", p, err, want)
		}
	}
	if got := ix.Len(); got != 0 {
		t.Errorf("Len() after failed Adds = %d, want 0", got)
	}
	if got := walk(ix, "a.example.com"); got != nil {
		t.Errorf("Walk(%q) after failed Adds = %q, want none", "a.example.com", got)
	}
}

func TestZeroValue(t *testing.T) {
	var ix Index[string]
	if m, ok := ix.Lookup("example.com"); ok {
		t.Errorf("Lookup on the zero Index = %q, true, want no match", m.Pattern)
	}
	if got := walk(&ix, "example.com"); got != nil {
		t.Errorf("Walk on the zero Index = %q, want none", got)
	}
	if err := ix.Add("*.example.com", "v"); err != nil {
		t.Fatalf("Add on the zero Index = %v, want nil", err)
	}
	got, ok := ix.Lookup("a.example.com")
	want := Match[string]{Pattern: "*.example.com", Values: []string{"v"}}
	if !ok {
		t.Fatalf("Lookup(%q) = _, false, want true", "a.example.com")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Lookup(%q) mismatch (-want +got):\n%s", "a.example.com", diff)
	}
}

// TestDeepestNames checks the longest names there are: a 127-label exact pattern and a
// host that matches a wildcard at every one of its levels.
func TestDeepestNames(t *testing.T) {
	name := strings.Repeat("a.", 126) + "a" // 127 labels, 253 bytes
	want := []string{name}
	ix := build(t, name)
	for suffix := name; ; {
		_, rest, ok := strings.Cut(suffix, ".")
		if !ok {
			break
		}
		suffix = rest
		want = append(want, "*."+suffix)
		if err := ix.Add("*."+suffix, ""); err != nil {
			t.Fatalf("Add(%q) = %v, want nil", "*."+suffix, err)
		}
	}
	if err := ix.Add("*", ""); err != nil {
		t.Fatalf("Add(%q) = %v, want nil", "*", err)
	}
	want = append(want, "*")
	if diff := cmp.Diff(want, walk(ix, name)); diff != "" {
		t.Errorf("Walk(%q) mismatch (-want +got):\n%s", name, diff)
	}
	deeper := "b." + name // 128 labels: more than any pattern has
	if diff := cmp.Diff(want[1:], walk(ix, deeper)); diff != "" {
		t.Errorf("Walk(%q) mismatch (-want +got):\n%s", deeper, diff)
	}
}

func TestLookupAndWalkDoNotAllocate(t *testing.T) {
	ix := build(t, "*", "*.com", "*.example.com", "api.example.com", "10.0.0.1")
	hosts := []string{
		"api.example.com", "API.Example.COM:8443", "v1.api.example.com.", "example.com",
		"[::1]:8080", "10.0.0.1:80", "", "nomatch.org", strings.Repeat("X", 300) + ".example.com",
	}
	for _, host := range hosts {
		if n := testing.AllocsPerRun(100, func() { ix.Lookup(host) }); n != 0 {
			t.Errorf("Lookup(%q) allocates %v times, want 0", host, n)
		}
		count := 0 // captured by the closure below: it must stay on the stack
		if n := testing.AllocsPerRun(100, func() {
			ix.Walk(host, func(m Match[string]) bool {
				count += len(m.Values)
				return true
			})
		}); n != 0 {
			t.Errorf("Walk(%q) allocates %v times, want 0", host, n)
		}
		if count == 0 {
			t.Errorf("Walk(%q) visited no values, want at least those of %q", host, "*")
		}
	}
}

func TestConcurrentLookups(t *testing.T) {
	ix := New[int]()
	const n = 1000
	for i := range n {
		if err := ix.Add(fmt.Sprintf("*.svc%d.example.com", i), i); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := range 4 {
		wg.Go(func() {
			for i := g; i < n; i += 4 {
				host := fmt.Sprintf("pod.SVC%d.example.com:80", i)
				m, ok := ix.Lookup(host)
				if !ok || len(m.Values) != 1 || m.Values[0] != i {
					errs <- fmt.Errorf("Lookup(%q) = %v, %v, want values [%d]", host, m.Values, ok, i)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
