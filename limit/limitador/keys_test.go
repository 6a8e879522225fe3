package limitador

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// keyRecorder is a memory store that records the keys of every Update.
type keyRecorder struct {
	counter.Store
	keys []string
}

func (r *keyRecorder) Update(ctx context.Context, now time.Time, updates []counter.Update, decisions []counter.Decision) error {
	for _, u := range updates {
		r.keys = append(r.keys, strings.Clone(u.Key))
	}
	return r.Store.Update(ctx, now, updates, decisions)
}

// TestCounterKeys pins the key format under both hash tag choices: the
// first variable as written ("user", though "org" sorts first) makes the
// tag; a limit without variables keeps the namespace's; an override takes
// its descriptor's first entry. A namespace's braces are escaped.
func TestCounterKeys(t *testing.T) {
	limits := []Limit{
		{Namespace: "shop}", MaxValue: 5, Seconds: 60, Variables: []string{"user", "org"}},
		{Namespace: "shop}", MaxValue: 5, Seconds: 60, Conditions: []string{"user == 'alice'"}},
	}
	req := rlsmsg.Request{Domain: "shop}", Descriptors: []rlsmsg.Descriptor{
		{Entries: entries("user", "alice", "org", "acme")},
		{Entries: entries("ip", "{1}"), Limit: &rlsmsg.Override{RequestsPerUnit: 3, Unit: rlsmsg.UnitMinute}},
	}}
	tests := []struct {
		tagBy limit.TagBy
		want  []string
	}{
		{limit.TagByDomain, []string{
			"{shop%7D}La2:601:01:23:org4:user4:acme5:alice",
			"{shop%7D}La2:601:115:user == \"alice\"1:0",
			"{shop%7D}O60:1:2:ip3:{1}",
		}},
		{limit.TagByFirstEntry, []string{
			"{shop%7D|user|alice}La2:601:01:23:org4:user4:acme5:alice",
			"{shop%7D}La2:601:115:user == \"alice\"1:0",
			"{shop%7D|ip|%7B1%7D}O60:1:2:ip3:{1}",
		}},
	}
	for _, tc := range tests {
		rec := &keyRecorder{Store: counter.NewMemoryStore(counter.MemoryOptions{})}
		e, err := NewEvaluator(limits, rec, WithTagBy(tc.tagBy))
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Evaluate(context.Background(), t0, &req, new(limit.Result)); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, rec.keys); diff != "" {
			t.Errorf("TagBy %v: keys (-want +got):\n%s", tc.tagBy, diff)
		}
	}
}

// TestFirstEntryTagCountsAsBefore: the hash tag changes where counters
// live, never what they count: a limit counts the same under both choices.
func TestFirstEntryTagCountsAsBefore(t *testing.T) {
	limits := []Limit{{Namespace: "shop", MaxValue: 2, Seconds: 60, Variables: []string{"descriptors[0]['user']"}}}
	e, err := NewEvaluator(limits, counter.NewMemoryStore(counter.MemoryOptions{}), WithTagBy(limit.TagByFirstEntry))
	if err != nil {
		t.Fatal(err)
	}
	var codes []rlsmsg.Code
	for _, user := range []string{"a", "a", "b", "a"} {
		r := evaluate(t, e, 0, rlsmsg.Request{Domain: "shop", Descriptors: []rlsmsg.Descriptor{{Entries: entries("user", user)}}})
		codes = append(codes, r.OverallCode)
	}
	want := []rlsmsg.Code{rlsmsg.CodeOK, rlsmsg.CodeOK, rlsmsg.CodeOK, rlsmsg.CodeOverLimit}
	if diff := cmp.Diff(want, codes); diff != "" {
		t.Errorf("codes (-want +got):\n%s", diff)
	}
	if _, err := NewEvaluator(limits, counter.NewMemoryStore(counter.MemoryOptions{}), WithTagBy(limit.TagBy(9))); err == nil {
		t.Error("NewEvaluator with an unknown TagBy succeeded")
	}
}
