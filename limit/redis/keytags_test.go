package redis

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/envoyratelimit"
	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/limit/redis/internal/script"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// hostileDomains hold the bytes Redis Cluster reads a hash tag by, and
// their escapes.
var hostileDomains = []string{"a", "a}", "a}b", "{a}", "{a", "}a", "a%7D", "a%", "a|b", "a|k|v", "}", "{", "{}"}

// keyLog is a memory store that records the keys of every Update.
type keyLog struct {
	counter.Store
	keys [][]string // per Update
}

func (l *keyLog) Update(ctx context.Context, now time.Time, updates []counter.Update, decisions []counter.Decision) error {
	var ks []string
	for _, u := range updates {
		ks = append(ks, strings.Clone(u.Key))
	}
	l.keys = append(l.keys, ks)
	return l.Store.Update(ctx, now, updates, decisions)
}

// evaluators returns, for each format, a function deciding req over store
// with keys tagged by tagBy; every domain of hostileDomains has the entry
// keys k and j limited.
func evaluators(t *testing.T, tagBy limit.TagBy, store counter.Store) map[string]func(req *rlsmsg.Request) {
	t.Helper()
	var files []envoyratelimit.File
	var limits []limitador.Limit
	for i, d := range hostileDomains {
		src := fmt.Sprintf("domain: %s\ndescriptors:\n  - key: k\n    rate_limit: {unit: minute, requests_per_unit: 9}\n  - key: j\n    rate_limit: {unit: minute, requests_per_unit: 9}\n", strconv.Quote(d))
		files = append(files, envoyratelimit.File{Key: "config.f" + strconv.Itoa(i), Data: []byte(src)})
		limits = append(limits,
			limitador.Limit{Namespace: d, MaxValue: 9, Seconds: 60, Variables: []string{"k"}},
			limitador.Limit{Namespace: d, MaxValue: 9, Seconds: 60, Variables: []string{"j"}})
	}
	cfg, err := envoyratelimit.Load(files, envoyratelimit.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rl, err := envoyratelimit.NewEvaluator(envoyratelimit.Options{Store: store, TagBy: tagBy})
	if err != nil {
		t.Fatal(err)
	}
	rl = rl.WithConfig(cfg)
	la, err := limitador.NewEvaluator(limits, store, limitador.WithTagBy(tagBy))
	if err != nil {
		t.Fatal(err)
	}
	run := func(ev limit.Evaluator) func(*rlsmsg.Request) {
		return func(req *rlsmsg.Request) {
			if err := ev.Evaluate(context.Background(), t0, req, new(limit.Result)); err != nil {
				t.Fatalf("Evaluate(%+v): %v", req, err)
			}
		}
	}
	return map[string]func(*rlsmsg.Request){"envoyratelimit": run(rl), "limitador": run(la)}
}

// TestHashTagPerDomain: whatever a domain holds, the keys of its counters
// have the hash tag Redis Cluster reads as that domain's alone: one tag
// for every key of the domain, a different one for every other domain.
func TestHashTagPerDomain(t *testing.T) {
	log := &keyLog{Store: counter.NewMemoryStore(counter.MemoryOptions{})}
	for format, decide := range evaluators(t, limit.TagByDomain, log) {
		tagOf := map[string]string{} // hash tag -> domain
		for _, d := range hostileDomains {
			log.keys = nil
			decide(&rlsmsg.Request{Domain: d, Descriptors: []rlsmsg.Descriptor{
				{Entries: []rlsmsg.Entry{{Key: "k", Value: "}v{"}}},
				{Entries: []rlsmsg.Entry{{Key: "j", Value: "{w}"}}},
			}})
			if len(log.keys) != 1 || len(log.keys[0]) != 2 {
				t.Fatalf("%s, domain %q: keys %q, want one Update of 2", format, d, log.keys)
			}
			k0, k1 := log.keys[0][0], log.keys[0][1]
			tag := script.HashTag(k0)
			if tag == k0 || script.HashTag(k1) != tag {
				t.Errorf("%s, domain %q: keys %q and %q hash as %q and %q, want one hash tag", format, d, k0, k1, tag, script.HashTag(k1))
			}
			if other, dup := tagOf[tag]; dup {
				t.Errorf("%s: domains %q and %q share the hash tag %q", format, other, d, tag)
			}
			tagOf[tag] = d
		}
	}
}

// TestHashTagPerFirstEntry: tagged by the first entry, the keys of one
// domain and first entry share a hash tag, and no other domain or entry
// has it.
func TestHashTagPerFirstEntry(t *testing.T) {
	log := &keyLog{Store: counter.NewMemoryStore(counter.MemoryOptions{})}
	for format, decide := range evaluators(t, limit.TagByFirstEntry, log) {
		tagOf := map[string]string{}
		for _, d := range hostileDomains {
			for _, v := range []string{"v", "|v", "}"} {
				log.keys = nil
				decide(&rlsmsg.Request{Domain: d, Descriptors: []rlsmsg.Descriptor{{Entries: []rlsmsg.Entry{{Key: "k", Value: v}}}}})
				if len(log.keys) != 1 || len(log.keys[0]) != 1 {
					t.Fatalf("%s, domain %q: keys %q, want one key", format, d, log.keys)
				}
				key := log.keys[0][0]
				tag := script.HashTag(key)
				if tag == key {
					t.Errorf("%s, domain %q, k=%q: key %q has no hash tag", format, d, v, key)
				}
				what := fmt.Sprintf("domain %q, k=%q", d, v)
				if other, dup := tagOf[tag]; dup {
					t.Errorf("%s: %s and %s share the hash tag %q", format, other, what, tag)
				}
				tagOf[tag] = what
			}
		}
	}
}
