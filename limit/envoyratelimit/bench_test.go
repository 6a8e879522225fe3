package envoyratelimit

import (
	"testing"

	"github.com/rlpkit/rlpkit/limit/counter"
)

func BenchmarkMatch(b *testing.B) {
	cfg, err := Load([]File{{Key: "config.m", Data: []byte(matchConfig)}}, LoadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	d := cfg.Domain("d")
	for _, bc := range []struct {
		name    string
		entries []Entry
	}{
		{"exact", []Entry{{Key: "k", Value: "exact"}}},
		{"wildcard", []Entry{{Key: "k", Value: "xxmidyyend"}}},
		{"nested", []Entry{{Key: "p", Value: "v"}, {Key: "q", Value: "1"}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			buf := make([]*Node, 0, 4)
			for b.Loop() {
				if d.Match(bc.entries, buf) == nil {
					b.Fatal("no match")
				}
			}
		})
	}
}

func BenchmarkEvaluate(b *testing.B) {
	cfg, err := Load([]File{{Key: "config.t", Data: []byte(evalConfig)}}, LoadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	ev, err := NewEvaluator(Options{Store: counter.NewMemoryStore(counter.MemoryOptions{})})
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		req  Request
	}{
		{"1 descriptor", req(desc("free", "x"))},
		{"1 counter", req(desc("multi", "m"))},
		{"3 counters", req(desc("user", "a"), desc("path", "/api/x"), desc("ten", "t"))},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := evaluate(ev, cfg, t0, &bc.req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
