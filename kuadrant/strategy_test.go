package kuadrant

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rlpkit/rlpkit/policy/kuadrantv1"
)

func rules(src *kuadrantv1.RateLimitPolicy, names ...string) Rules {
	out := Rules{}
	for _, n := range names {
		out[n] = Rule{Source: src}
	}
	return out
}

// sourcesOf lists "name=policy" of a rule set, sorted.
func sourcesOf(rs Rules) []string {
	var out []string
	for n, r := range rs {
		out = append(out, n+"="+r.Source.Name)
	}
	slices.Sort(out)
	return out
}

func TestStrategies(t *testing.T) {
	p := &kuadrantv1.RateLimitPolicy{ObjectMeta: metav1.ObjectMeta{Name: "p"}}
	acc := &kuadrantv1.RateLimitPolicy{ObjectMeta: metav1.ObjectMeta{Name: "acc"}}
	tests := []struct {
		name     string
		strategy Strategy
		source   Rules
		target   Rules
		want     []string
	}{
		{"atomic defaults keep a non-empty target", AtomicDefaults, rules(p, "a", "b"), rules(acc, "c"), []string{"c=acc"}},
		{"atomic defaults take source over nothing", AtomicDefaults, rules(p, "a"), nil, []string{"a=p"}},
		{"atomic overrides replace", AtomicOverrides, rules(p, "a"), rules(acc, "a", "c"), []string{"a=p"}},
		{"merge defaults add missing names", MergeDefaults, rules(p, "a", "b"), rules(acc, "a", "c"), []string{"a=acc", "b=p", "c=acc"}},
		{"merge defaults over nothing", MergeDefaults, rules(p, "a"), nil, []string{"a=p"}},
		{"merge overrides win by name", MergeOverrides, rules(p, "a", "b"), rules(acc, "a", "c"), []string{"a=p", "b=p", "c=acc"}},
		{"merge overrides keep the when of target when source has none", MergeOverrides, rules(p, "a"), rules(acc, WhenRule), []string{"=acc", "a=p"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			target := Rules{}
			for k, v := range tc.target {
				target[k] = v
			}
			got := sourcesOf(tc.strategy(tc.source, tc.target))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("strategy(source, target) (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(sourcesOf(target), sourcesOf(tc.target)); diff != "" {
				t.Errorf("strategy modified target (-before +after):\n%s", diff)
			}
		})
	}
}

// TestLimitID checks the ids of kuadrant-operator's documented example.
func TestLimitID(t *testing.T) {
	p := &kuadrantv1.RateLimitPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: "toystore", Name: "toystore-rlp"}}
	tests := []struct{ name, want string }{
		{"global", "limit.global__53f76b2d"},
		{"per-ip", "limit.per_ip__815c57de"},
	}
	for _, tc := range tests {
		if got := LimitID(p, tc.name); got != tc.want {
			t.Errorf("LimitID(toystore/toystore-rlp, %q) = %s, want %s", tc.name, got, tc.want)
		}
	}
}
