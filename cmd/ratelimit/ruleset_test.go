package main

import (
	"strconv"
	"sync"
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
	if n := r.keys.Len(); n != 10 {
		t.Errorf("%d keys holding request values, want 10", n)
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

// TestRuleSetConcurrent: with observations, periods, scrapes and statsd
// flushes at once, neither _other, nor _override, nor a domain's sum of
// series goes down from one scrape to the next, and in the end every hit
// is in the totals and was sent once.
func TestRuleSetConcurrent(t *testing.T) {
	r := newRuleSet(8)
	const workers, each = 3, 4000
	var observers sync.WaitGroup
	for w := range workers {
		observers.Go(func() {
			for i := range each {
				kind := envoyratelimit.StatKind(1 + i%2) // detailed or override
				r.observe(envoyratelimit.Stat{Domain: "d", Key: "d.k_" + strconv.Itoa((i*7+w)%40), Kind: kind}, hit)
			}
		})
	}
	observed := make(chan struct{})
	go func() { observers.Wait(); close(observed) }()
	var sent uint64
	last := map[promLabels][5]uint64{}
	for scraping := true; scraping; {
		select {
		case <-observed:
			scraping = false
		default:
		}
		r.tick()
		_, n := totalHits(r.unsent())
		sent += n
		now := r.byLabel()
		var all uint64 // an evicted key's series ends, and may start again from 0
		for _, v := range now {
			all += v[0]
		}
		now[promLabels{"d", "(all)"}] = [5]uint64{all}
		for _, l := range []promLabels{{"d", otherKey}, {"d", overrideKey}, {"d", "(all)"}} {
			if now[l][0] < last[l][0] {
				t.Fatalf("%v went down: %d then %d", l, last[l][0], now[l][0])
			}
		}
		last = now
	}
	t.Logf("last scrape: %v", last)
	if _, total := totalHits(r.totals()); total != workers*each || sent != workers*each {
		t.Errorf("totals %d, sent %d; want %d each", total, sent, workers*each)
	}
}
