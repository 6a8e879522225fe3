package hostindex

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The reference functions below define the package's behaviour as plainly as possible,
// with regular expressions and string comparison over every pattern, so the fuzz targets
// can check the trie and the zero-allocation parsers against them.

var (
	refBracketed = regexp.MustCompile(`^\[([^\]]*)\](:[0-9]*)?$`)
	refWithPort  = regexp.MustCompile(`^([^:]*):[0-9]*$`)
	refLabels    = regexp.MustCompile(`^(\*\.)?[a-zA-Z0-9]([-a-zA-Z0-9]*[a-zA-Z0-9])?(\.[a-zA-Z0-9]([-a-zA-Z0-9]*[a-zA-Z0-9])?)*$`)
)

// refTrimHost is TrimHost written with regular expressions.
func refTrimHost(host string) string {
	if m := refBracketed.FindStringSubmatch(host); m != nil {
		host = m[1]
	} else if m := refWithPort.FindStringSubmatch(host); m != nil && !strings.HasPrefix(host, "[") {
		host = m[1]
	}
	return strings.TrimSuffix(host, ".")
}

// refNormalize is Normalize: refTrimHost with the ASCII letters lower-cased.
func refNormalize(host string) string {
	b := []byte(refTrimHost(host))
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

// refPattern returns p normalised and true if p is a valid pattern, or "", false.
func refPattern(p string) (string, bool) {
	p = strings.TrimSuffix(p, ".")
	if p == "*" {
		return p, true
	}
	if len(p) > 253 || !refLabels.MatchString(p) {
		return "", false
	}
	for label := range strings.SplitSeq(p, ".") {
		if len(label) > 63 {
			return "", false
		}
	}
	return strings.ToLower(p), true // p is ASCII
}

// refMatches reports whether the normalised pattern p matches the normalised host h.
func refMatches(p, h string) bool {
	switch {
	case p == "*":
		return true
	case strings.HasPrefix(p, "*."):
		return len(h) > len(p)-1 && strings.HasSuffix(h, p[1:])
	default:
		return p == h
	}
}

// refWalk returns the matches for host among the normalised patterns, each with its
// values, from the most specific to the least.
func refWalk(patterns []string, values map[string][]int, host string) []Match[int] {
	h := refNormalize(host)
	var got []Match[int]
	for _, p := range patterns {
		if refMatches(p, h) {
			got = append(got, Match[int]{Pattern: p, Values: values[p]})
		}
	}
	rank := func(p string) int { // exact first, then longer wildcards, "*" last
		if strings.HasPrefix(p, "*") {
			return -len(p)
		}
		return -1000
	}
	slices.SortFunc(got, func(a, b Match[int]) int { return rank(a.Pattern) - rank(b.Pattern) })
	return got
}

// fuzzHosts returns host and hosts derived from the patterns, so that the fuzzer reaches
// matches without having to guess them.
func fuzzHosts(host string, patterns []string) []string {
	hosts := []string{host}
	for _, p := range patterns {
		name := strings.TrimPrefix(p, "*.")
		hosts = append(hosts, name, "."+name, "x."+name, "A.b."+strings.ToUpper(name)+".:80", "["+name+"]", "x"+name)
		if _, rest, ok := strings.Cut(name, "."); ok {
			hosts = append(hosts, rest, "y."+rest)
		}
	}
	return hosts
}

func FuzzIndex(f *testing.F) {
	f.Add("*.example.com,example.com,*.com,*", "Test.Example.com:80")
	f.Add("api.example.com,*.api.example.com,*.example.com,API.example.com.", "v1.api.example.com.")
	f.Add("10.0.0.1,*.0.0.1,*", "[::1]:8080")
	f.Add("a*.b,*.*.c,-a.com,a..b,,.", "a.b")
	f.Add("*.a,*.a.a,*.a.a.a,a.a.a.a", ".a.a..a.a")
	f.Add("x.y", "X.Y.")
	f.Fuzz(func(t *testing.T, list, host string) {
		added := strings.Split(list, ",")
		if len(added) > 64 {
			added = added[:64]
		}
		ix := New[int]()
		var patterns []string // normalised, distinct, valid
		values := map[string][]int{}
		for i, p := range added {
			err := ix.Add(p, i)
			norm, ok := refPattern(p)
			if (err == nil) != ok {
				t.Fatalf("Add(%q) = %v, want valid %v", p, err, ok)
			}
			if verr := ValidatePattern(p); fmt.Sprint(verr) != fmt.Sprint(err) {
				t.Fatalf("Add(%q) = %v, ValidatePattern = %v, want the same", p, err, verr)
			}
			if !ok {
				continue
			}
			if _, seen := values[norm]; !seen {
				patterns = append(patterns, norm)
			}
			values[norm] = append(values[norm], i)
		}
		if got, want := ix.Len(), len(patterns); got != want {
			t.Fatalf("Len() = %d, want %d", got, want)
		}
		for _, h := range fuzzHosts(host, patterns) {
			want := refWalk(patterns, values, h)
			var got []Match[int]
			ix.Walk(h, func(m Match[int]) bool {
				got = append(got, m)
				return true
			})
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("Walk(%q) mismatch (-want +got):\n%s", h, diff)
			}
			m, ok := ix.Lookup(h)
			if ok != (len(want) > 0) || ok && m.Pattern != want[0].Pattern {
				t.Fatalf("Lookup(%q) = %q, %v, want the first of %v", h, m.Pattern, ok, want)
			}
			calls := 0
			ix.Walk(h, func(Match[int]) bool {
				calls++
				return false
			})
			if calls != min(1, len(want)) {
				t.Fatalf("Walk(%q) with fn returning false called fn %d times, want %d", h, calls, min(1, len(want)))
			}
		}
	})
}

func FuzzHost(f *testing.F) {
	for _, h := range []string{"example.com", "Foo.Example.COM:8443", "[::1]:8080", "::1", "example.com.", "[a]:", "a:b", ""} {
		f.Add(h)
	}
	f.Fuzz(func(t *testing.T, host string) {
		got := TrimHost(host)
		if want := refTrimHost(host); got != want {
			t.Fatalf("TrimHost(%q) = %q, want %q", host, got, want)
		}
		if !strings.Contains(host, got) {
			t.Fatalf("TrimHost(%q) = %q, want a substring of its input", host, got)
		}
		if got, want := Normalize(host), refNormalize(host); got != want {
			t.Fatalf("Normalize(%q) = %q, want %q", host, got, want)
		}
	})
}
