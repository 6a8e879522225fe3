package hostindex

import (
	"fmt"
	"testing"
)

// benchIndex returns an Index of n patterns: even i gives the exact "api-<i>.example.com",
// odd i the wildcard "*.svc-<i>.example.net".
func benchIndex(b *testing.B, n int) *Index[int] {
	b.Helper()
	ix := New[int]()
	for i := range n {
		p := fmt.Sprintf("api-%d.example.com", i)
		if i%2 == 1 {
			p = fmt.Sprintf("*.svc-%d.example.net", i)
		}
		if err := ix.Add(p, i); err != nil {
			b.Fatal(err)
		}
	}
	return ix
}

// BenchmarkLookup shows that a lookup costs the same whatever the size of the Index and
// allocates nothing: an exact hit, a wildcard hit two labels deep, the same hit written
// with upper-case letters and a port, and a miss.
func BenchmarkLookup(b *testing.B) {
	for _, n := range []int{10, 1_000, 100_000} {
		ix := benchIndex(b, n)
		hosts := []struct{ name, host string }{
			{"exact", fmt.Sprintf("api-%d.example.com", n/2&^1)},
			{"wildcard", fmt.Sprintf("v1.pod.svc-%d.example.net", n/2|1)},
			{"mixedcase-port", fmt.Sprintf("V1.Pod.SVC-%d.Example.NET:8443", n/2|1)},
			{"miss", "www.unknown-host.example.org"},
		}
		for _, h := range hosts {
			b.Run(fmt.Sprintf("n=%d/%s", n, h.name), func(b *testing.B) {
				_, want := ix.Lookup(h.host)
				if want != (h.name != "miss") {
					b.Fatalf("Lookup(%q) found %v, want %v", h.host, want, !want)
				}
				b.ReportAllocs()
				for b.Loop() {
					ix.Lookup(h.host)
				}
			})
		}
	}
}

// BenchmarkWalk visits all four matches of a host (exact, two wildcards, "*") in an Index
// of 100,000 patterns, with a closure that captures a local variable.
func BenchmarkWalk(b *testing.B) {
	ix := benchIndex(b, 100_000)
	for _, p := range []string{"*", "*.com", "*.example.com"} {
		if err := ix.Add(p, -1); err != nil {
			b.Fatal(err)
		}
	}
	host := "API-500.example.com:443"
	b.ReportAllocs()
	for b.Loop() {
		matches := 0
		ix.Walk(host, func(Match[int]) bool {
			matches++
			return true
		})
		if matches != 4 {
			b.Fatalf("Walk(%q) visited %d matches, want 4", host, matches)
		}
	}
}

func BenchmarkNormalize(b *testing.B) {
	for _, host := range []string{"api.example.com:8443", "API.Example.com:8443"} {
		b.Run(host, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Normalize(host)
			}
		})
	}
}
