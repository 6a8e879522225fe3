package main

import (
	"iter"
	"strings"
	"sync"
	"time"

	"github.com/rlpkit/rlpkit/internal/keyset"
	"github.com/rlpkit/rlpkit/limit/envoyratelimit"
)

// ruleStatPrefix begins the name of every per-rule statistic.
const ruleStatPrefix = "ratelimit.service.rate_limit."

// statNameEscaper replaces what statsd gives a meaning to, as the
// reference's statistics library does.
var statNameEscaper = strings.NewReplacer(":", "_", "|", "_")

// statName is a statistics key as the names of statsd, /stats and the
// Prometheus mapper write it: ':' and '|' as '_' ("d.path_/a:b" is
// d.path_/a_b).
func statName(key string) string {
	if !strings.ContainsAny(key, ":|") {
		return key
	}
	return statNameEscaper.Replace(key)
}

// The statistics keys, below a domain, of what is not a key of its own.
const (
	// otherKey counts the keys holding request values that found no room,
	// and those evicted: ratelimit.service.rate_limit.<domain>._other.*.
	otherKey = "_other"
	// overrideKey is the Prometheus key label of every limit override of
	// a domain: the overrides' own keys are request values.
	overrideKey = "_override"
)

// defaultStatsMaxKeys is RLPKIT_STATS_MAX_KEYS's default.
const defaultStatsMaxKeys = 1000

// ruleSet is the per-rule statistics: configured keys (the configurations
// loaded bound them), and at most max keys holding request values
// (detailed_metric, value_to_metric, overrides), the others counting in
// their domain's _other key. It is safe for concurrent use.
type ruleSet struct {
	configured sync.Map // statistics key -> *ruleEntry; never evicted
	keys       *keyset.Set[ruleKey, *ruleEntry]
	others     sync.Map // otherOf -> *ruleEntry
}

// ruleKey is an entry's key: an override and a detailed_metric rule may
// have the same statistics key, and only the latter may be a label.
type ruleKey struct {
	name string
	kind envoyratelimit.StatKind
}

// otherOf is the key of an overflow entry.
type otherOf struct {
	domain string
	kind   envoyratelimit.StatKind
}

// ruleEntry is the statistics of one key.
type ruleEntry struct {
	domain, name string // name: the statistics key, "domain.path"
	kind         envoyratelimit.StatKind
	overflow     bool // a domain's _other entry
	counts       ruleStats
	// sent is what statsd was sent of counts; guarded by the keys' lock.
	sent  [len(ruleStatNames)]uint64
	other *ruleEntry // where counts go when the entry is evicted
}

func newRuleSet(max int) *ruleSet {
	return &ruleSet{keys: keyset.New(max, func(_ ruleKey, e *ruleEntry) { e.fold() })}
}

// observe adds one rule's counts.
func (r *ruleSet) observe(st envoyratelimit.Stat, c envoyratelimit.RuleCounts) {
	if st.Kind == envoyratelimit.StatConfigured {
		v, ok := r.configured.Load(st.Key)
		if !ok {
			v, _ = r.configured.LoadOrStore(st.Key, &ruleEntry{domain: st.Domain, name: st.Key, kind: st.Kind})
		}
		v.(*ruleEntry).add(c)
		return
	}
	ref, ok := r.keys.Acquire(ruleKey{st.Key, st.Kind}, func() *ruleEntry { return r.newEntry(st) })
	if !ok {
		r.other(st.Domain, st.Kind).add(c)
		return
	}
	ref.Value().add(c)
	ref.Release()
}

func (r *ruleSet) newEntry(st envoyratelimit.Stat) *ruleEntry {
	return &ruleEntry{domain: st.Domain, name: st.Key, kind: st.Kind, other: r.other(st.Domain, st.Kind)}
}

// other is the overflow entry of a domain's keys of kind.
func (r *ruleSet) other(domain string, kind envoyratelimit.StatKind) *ruleEntry {
	if v, ok := r.others.Load(otherOf{domain, kind}); ok {
		return v.(*ruleEntry)
	}
	v, _ := r.others.LoadOrStore(otherOf{domain, kind}, &ruleEntry{domain: domain, name: domain + "." + otherKey, kind: kind, overflow: true})
	return v.(*ruleEntry)
}

func (e *ruleEntry) add(c envoyratelimit.RuleCounts) {
	for i, n := range [...]uint64{c.TotalHits, c.OverLimit, c.NearLimit, c.WithinLimit, c.ShadowMode} {
		if n > 0 {
			e.counts[i].Add(n)
		}
	}
}

// fold moves an evicted entry's counts, and what statsd was sent of them,
// to its overflow entry: every total stays, and statsd is sent the rest.
func (e *ruleEntry) fold() {
	for i := range e.counts {
		e.other.counts[i].Add(e.counts[i].Load())
		e.other.sent[i] += e.sent[i]
	}
}

// label is the entry's Prometheus key label: its path below the domain,
// never an override's.
func (e *ruleEntry) label() string {
	switch {
	case e.kind == envoyratelimit.StatOverride:
		return overrideKey
	case e.overflow:
		return otherKey
	}
	return strings.TrimPrefix(e.name, e.domain+".")
}

// view calls f holding the keys' lock, with every entry, configured and
// overflow ones included: none is evicted meanwhile, so totals taken in f
// never go down from one view to the next.
func (r *ruleSet) view(f func(all iter.Seq[*ruleEntry])) {
	r.keys.View(func(keys iter.Seq2[ruleKey, *ruleEntry]) {
		f(func(yield func(*ruleEntry) bool) {
			more := true
			r.configured.Range(func(_, v any) bool { more = yield(v.(*ruleEntry)); return more })
			for _, e := range keys {
				if !more || !yield(e) {
					return
				}
			}
			r.others.Range(func(_, v any) bool { return yield(v.(*ruleEntry)) })
		})
	})
}

// totals returns every statistics key's counts, the entries sharing a name
// (an override's and a rule's, the overflow of each kind) added.
func (r *ruleSet) totals() map[string][len(ruleStatNames)]uint64 {
	return r.sum(func(e *ruleEntry, i int) uint64 { return e.counts[i].Load() })
}

// unsent returns what statsd was not sent yet of every key's counts, by
// name, and records it as sent.
func (r *ruleSet) unsent() map[string][len(ruleStatNames)]uint64 {
	return r.sum(func(e *ruleEntry, i int) uint64 {
		n := e.counts[i].Load()
		d := n - e.sent[i]
		e.sent[i] = n
		return d
	})
}

// sum returns, by name, what take gives of each count of every key, the
// entries sharing a name added.
func (r *ruleSet) sum(take func(e *ruleEntry, i int) uint64) map[string][len(ruleStatNames)]uint64 {
	out := map[string][len(ruleStatNames)]uint64{}
	r.view(func(all iter.Seq[*ruleEntry]) {
		for e := range all {
			v := out[e.name]
			for i := range v {
				v[i] += take(e, i)
			}
			out[e.name] = v
		}
	})
	return out
}

// tick starts a new period of the keys: a key holding request values that
// went unused for a whole period may give its slot to a new one.
func (r *ruleSet) tick() { r.keys.Tick() }

// promLabels are the labels of a rule's Prometheus series.
type promLabels struct{ domain, key string }

// byLabel returns the counts of every Prometheus series: the entries
// sharing labels (the overrides of a domain, with their overflow) added.
func (r *ruleSet) byLabel() map[promLabels][len(ruleStatNames)]uint64 {
	out := map[promLabels][len(ruleStatNames)]uint64{}
	r.view(func(all iter.Seq[*ruleEntry]) {
		for e := range all {
			l := promLabels{e.domain, e.label()}
			v := out[l]
			for i := range v {
				v[i] += e.counts[i].Load()
			}
			out[l] = v
		}
	})
	return out
}

// statsKeyPeriod is the period of the statistics keys: a key holding
// request values that went unused for a whole one (5 to 10 minutes) may
// give its slot to a new key.
const statsKeyPeriod = 5 * time.Minute
