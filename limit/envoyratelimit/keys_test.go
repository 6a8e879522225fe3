package envoyratelimit

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
)

// TestKeysAreUnambiguous: a value holding what envoyproxy/ratelimit joins
// entries with ("_") must not spend the budget of another descriptor.
// There, user "alice_path_/x" and (user "alice", path "/x") are one key,
// "d_user_alice_path_/x_<window>".
func TestKeysAreUnambiguous(t *testing.T) {
	cfg := mustLoad(t, `domain: d
descriptors:
  - key: user
    rate_limit: {unit: minute, requests_per_unit: 1}
    descriptors:
      - key: path
        rate_limit: {unit: minute, requests_per_unit: 1}
`)
	ev, err := NewEvaluator(Options{Store: counter.NewMemoryStore(counter.MemoryOptions{})})
	if err != nil {
		t.Fatal(err)
	}
	run(t, ev, cfg, []step{
		{0, req(desc("user", "alice", "path", "/x")), resp(OK, lim(OK, "", 1, UnitMinute, 0, 50*sec)), ""},
		{0, req(desc("user", "alice_path_/x")), resp(OK, lim(OK, "", 1, UnitMinute, 0, 50*sec)), ""},
		{0, req(desc("user", "alice", "path", "/x")), resp(OVER, lim(OVER, "", 1, UnitMinute, 0, 50*sec)), ""},
	})
}

// recorder is a memory store that records the keys it is asked for.
type recorder struct {
	counter.Store
	mu   sync.Mutex
	keys []string
}

func (r *recorder) Update(ctx context.Context, now time.Time, updates []counter.Update, decisions []counter.Decision) error {
	r.mu.Lock()
	for _, u := range updates {
		r.keys = append(r.keys, strings.Clone(u.Key))
	}
	r.mu.Unlock()
	return r.Store.Update(ctx, now, updates, decisions)
}

func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := r.keys
	r.keys = nil
	return k
}

// TestCounterKeys pins the key format: the hash tag, "R", the window in
// seconds, the algorithm, the number of entries and each entry's key and
// value length-prefixed; a share_threshold entry is written as its pattern.
func TestCounterKeys(t *testing.T) {
	cfg := mustLoad(t, `domain: "d}x"
descriptors:
  - key: user
    rate_limit: {unit: minute, requests_per_unit: 5}
  - key: path
    value: "/api/*"
    share_threshold: true
    descriptors:
      - key: user
        rate_limit: {unit: hour, requests_per_unit: 5, algorithm: gcra}
`)
	tests := []struct {
		tagBy limit.TagBy
		d     Descriptor
		want  string
	}{
		{limit.TagByDomain, desc("user", "alice"), "{d%7Dx}R60:fixed_window:1:4:user5:alice"},
		{limit.TagByDomain, desc("path", "/api/v1", "user", "bob"), "{d%7Dx}R3600:gcra:2:4:path6:/api/*4:user3:bob"},
		{limit.TagByDomain, withLimit(desc("other", "v"), 3), "{d%7Dx}R60:fixed_window:1:5:other1:v"},
		{limit.TagByFirstEntry, desc("user", "alice"), "{d%7Dx|user|alice}R60:fixed_window:1:4:user5:alice"},
		{limit.TagByFirstEntry, desc("path", "/api/v1", "user", "bob"), "{d%7Dx|path|/api/*}R3600:gcra:2:4:path6:/api/*4:user3:bob"},
		{limit.TagByFirstEntry, withLimit(desc("other", "{v}"), 3), "{d%7Dx|other|%7Bv%7D}R60:fixed_window:1:5:other3:{v}"},
	}
	for _, tc := range tests {
		rec := &recorder{Store: counter.NewMemoryStore(counter.MemoryOptions{})}
		ev, err := NewEvaluator(Options{Store: rec, TagBy: tc.tagBy})
		if err != nil {
			t.Fatal(err)
		}
		r := Request{Domain: "d}x", Descriptors: []Descriptor{tc.d}}
		if _, err := evaluate(ev, cfg, t0, &r); err != nil {
			t.Fatal(err)
		}
		if got := rec.take(); len(got) != 1 || got[0] != tc.want {
			t.Errorf("TagBy %v, %+v: keys %q, want [%q]", tc.tagBy, tc.d.Entries, got, tc.want)
		}
	}
}
