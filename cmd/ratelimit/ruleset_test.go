package main

import (
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlpkit/rlpkit/limit/envoyratelimit"
)

var hit = envoyratelimit.RuleCounts{TotalHits: 1, WithinLimit: 1}

func detailed(domain, key string) envoyratelimit.Stat {
	return envoyratelimit.Stat{Domain: domain, Key: domain + "." + key, Kind: envoyratelimit.StatDetailed}
}

// totalHits returns the total_hits of every key of totals, and their sum.
func totalHits(m map[string][len(ruleStatNames)]uint64) (map[string]uint64, uint64) {
	out, sum := map[string]uint64{}, uint64(0)
	for k, v := range m {
		out[k] = v[0]
		sum += v[0]
	}
	return out, sum
}

// TestRuleSetKeepsEntriesBounded: the set of keys holding request values
// does not grow beyond its bound, whatever the values sent.
func TestRuleSetKeepsEntriesBounded(t *testing.T) {
	r := newRuleSet(10)
	for i := range 5000 {
		r.observe(detailed("d", "user_"+strconv.Itoa(i)), hit)
		if i%500 == 0 {
			r.tick()
		}
	}
	r.observe(envoyratelimit.Stat{Domain: "d", Key: "d.k", Kind: envoyratelimit.StatConfigured}, hit)
	if pinned, bounded := r.keys.Len(); pinned != 1 || bounded != 10 {
		t.Errorf("%d configured keys and %d others, want 1 and 10", pinned, bounded)
	}
	if got, sum := totalHits(r.totals()); len(got) != 12 || sum != 5001 {
		t.Errorf("%d keys, total_hits %d; want 12 keys (10, d._other, d.k), 5001", len(got), sum)
	}
}

// TestEvictedKeyFoldsIntoOther: a key unused for a period gives its slot;
// its counts move to _other, so no total goes down (Prometheus), and statsd
// is sent every hit exactly once.
func TestEvictedKeyFoldsIntoOther(t *testing.T) {
	r := newRuleSet(1)
	for range 3 {
		r.observe(detailed("d", "user_a"), hit)
	}
	r.observe(detailed("d", "user_b"), hit) // no room
	sent := map[string]uint64{}
	send := func() {
		got, _ := totalHits(r.unsent())
		for k, v := range got {
			sent[k] += v
		}
	}
	send()
	r.observe(detailed("d", "user_a"), hit) // not sent yet when evicted
	before := r.byLabel()
	r.tick()
	r.tick()
	r.observe(detailed("d", "user_b"), hit) // takes user_a's slot
	after := r.byLabel()
	if diff := cmp.Diff(map[promLabels][5]uint64{
		{"d", "user_a"}: {4, 0, 0, 4, 0},
		{"d", "_other"}: {1, 0, 0, 1, 0},
	}, before); diff != "" {
		t.Errorf("before the eviction (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[promLabels][5]uint64{
		{"d", "user_b"}: {1, 0, 0, 1, 0},
		{"d", "_other"}: {5, 0, 0, 5, 0},
	}, after); diff != "" {
		t.Errorf("after the eviction (-want +got):\n%s", diff)
	}
	send()
	if diff := cmp.Diff(map[string]uint64{"d.user_a": 3, "d._other": 2, "d.user_b": 1}, sent); diff != "" {
		t.Errorf("sent to statsd (-want +got):\n%s", diff)
	}
}

// TestOverridesShareOneLabel: overrides count under their own statistics
// key (as the reference names them) but one Prometheus series per domain,
// also when an override and a detailed_metric rule share a key; the domain
// label is the domain, dots and all.
func TestOverridesShareOneLabel(t *testing.T) {
	r := newRuleSet(2)
	for _, v := range []string{"a", "b", "c"} {
		r.observe(envoyratelimit.Stat{Domain: "x.y", Key: "x.y.tenant_" + v, Kind: envoyratelimit.StatOverride}, hit)
	}
	r.observe(detailed("x.y", "tenant_a"), hit)
	if diff := cmp.Diff(map[promLabels][5]uint64{
		{"x.y", "_override"}: {3, 0, 0, 3, 0},
		{"x.y", "_other"}:    {1, 0, 0, 1, 0},
	}, r.byLabel()); diff != "" {
		t.Errorf("Prometheus series (-want +got):\n%s", diff)
	}
	got, _ := totalHits(r.totals())
	if diff := cmp.Diff(map[string]uint64{"x.y.tenant_a": 1, "x.y.tenant_b": 1, "x.y._other": 2}, got); diff != "" {
		t.Errorf("statistics keys (-want +got):\n%s", diff)
	}
}
