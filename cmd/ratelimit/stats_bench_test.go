package main

import (
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/rlpkit/rlpkit/limit/envoyratelimit"
)

// BenchmarkObserve measures stats.observe, the per-limit cost of the
// statistics on every call: a configured key, 100 detailed_metric keys in
// turn (all in the set, which is full), and a new value each time (beyond
// the bound).
func BenchmarkObserve(b *testing.B) {
	keys := make([]envoyratelimit.Stat, 100)
	for i := range keys {
		keys[i] = envoyratelimit.Stat{Domain: "d", Key: "d.user_" + strconv.Itoa(i), Kind: envoyratelimit.StatDetailed}
	}
	unique := make([]envoyratelimit.Stat, 1<<16)
	for i := range unique {
		unique[i] = envoyratelimit.Stat{Domain: "d", Key: "d.user_x" + strconv.Itoa(i), Kind: envoyratelimit.StatDetailed}
	}
	c := envoyratelimit.RuleCounts{TotalHits: 1, WithinLimit: 1}
	for _, bc := range []struct {
		name string
		stat func(i int) envoyratelimit.Stat
	}{
		{"configured", func(int) envoyratelimit.Stat {
			return envoyratelimit.Stat{Domain: "d", Key: "d.k", Kind: envoyratelimit.StatConfigured}
		}},
		{"100 detailed", func(i int) envoyratelimit.Stat { return keys[i%len(keys)] }},
		{"new values", func(i int) envoyratelimit.Stat { return unique[i%len(unique)] }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s := newStats(defaultStatsMaxKeys)
			for i := range defaultStatsMaxKeys - len(keys) { // fill the set
				s.observe(envoyratelimit.Stat{Domain: "d", Key: "d.fill_" + strconv.Itoa(i), Kind: envoyratelimit.StatDetailed}, c)
			}
			for _, k := range keys {
				s.observe(k, c)
			}
			var next atomic.Int64
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				i := int(next.Add(1) << 20)
				for pb.Next() {
					s.observe(bc.stat(i), c)
					i++
				}
			})
		})
	}
}
