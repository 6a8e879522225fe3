package envoyratelimit

import (
	"testing"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
)

// TestReferenceKeys pins KeysReference byte for byte against the keys
// envoyproxy/ratelimit's cache key generator writes: the domain, "_", each
// entry's key "_" value "_" (a share_threshold entry as its pattern), then
// the window's start in Unix seconds; the hash tag choice does not apply.
func TestReferenceKeys(t *testing.T) {
	cfg := mustLoad(t, `domain: d
descriptors:
  - key: user
    rate_limit: {unit: minute, requests_per_unit: 5}
  - key: path
    value: "/api/*"
    share_threshold: true
    descriptors:
      - key: user
        rate_limit: {unit: hour, requests_per_unit: 5}
  - key: multi
    rate_limits:
      - {unit: second, requests_per_unit: 3}
      - {unit: day, requests_per_unit: 4}
`)
	day := t0.Unix() - 10 // t0 is 10 s into a day
	tests := []struct {
		d    Descriptor
		want []string
	}{
		{desc("user", "alice"), []string{"d_user_alice_" + itoa64(day)}},
		{desc("user", "alice_path_/x"), []string{"d_user_alice_path_/x_" + itoa64(day)}},
		{desc("path", "/api/v1", "user", "bob"), []string{"d_path_/api/*_user_bob_" + itoa64(day)}},
		{withLimit(desc("other", "v"), 3), []string{"d_other_v_" + itoa64(day)}},
		{desc("multi", "m"), []string{"d_multi_m_" + itoa64(day+10), "d_multi_m_" + itoa64(day) + "/1"}},
	}
	for _, tagBy := range []limit.TagBy{limit.TagByDomain, limit.TagByFirstEntry} {
		for _, tc := range tests {
			rec := &recorder{Store: counter.NewMemoryStore(counter.MemoryOptions{})}
			ev, err := NewEvaluator(Options{Store: rec, TagBy: tagBy, Keys: KeysReference})
			if err != nil {
				t.Fatal(err)
			}
			r := req(tc.d)
			if _, err := evaluate(ev, cfg, t0, &r); err != nil {
				t.Fatal(err)
			}
			got := rec.take()
			if len(got) != len(tc.want) {
				t.Fatalf("%+v: keys %q, want %q", tc.d.Entries, got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("TagBy %v, %+v: key %q, want %q", tagBy, tc.d.Entries, got[i], tc.want[i])
				}
			}
		}
	}
}

func itoa64(n int64) string { return uitoa(uint64(n)) }

func uitoa(n uint64) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// TestReferenceCounts: with the reference's keys, a request's hits are
// split as the reference splits them, from the counter before and after
// it (the counters count rejected hits too): near_limit above
// floor(limit*ratio), over_limit above the limit.
func TestReferenceCounts(t *testing.T) {
	ev, err := NewEvaluator(Options{Store: counter.NewMemoryStore(counter.MemoryOptions{}), Keys: KeysReference})
	if err != nil {
		t.Fatal(err)
	}
	rule := &Rule{RequestsPerUnit: 10}
	shadow := &Node{ShadowMode: true}
	tests := []struct {
		name    string
		node    *Node
		after   uint64 // the counter after the request
		cost    uint64
		allowed bool
		want    RuleCounts
	}{
		{"within, below the threshold", nil, 8, 1, true, RuleCounts{TotalHits: 1, WithinLimit: 1}},
		{"within, crossing the threshold", nil, 10, 3, true, RuleCounts{TotalHits: 3, WithinLimit: 3, NearLimit: 2}},
		{"within, above the threshold", nil, 10, 1, true, RuleCounts{TotalHits: 1, WithinLimit: 1, NearLimit: 1}},
		{"over from below the threshold", nil, 13, 6, false, RuleCounts{TotalHits: 6, OverLimit: 3, NearLimit: 2}},
		{"over from the threshold", nil, 11, 2, false, RuleCounts{TotalHits: 2, OverLimit: 1, NearLimit: 1}},
		{"over already", nil, 12, 2, false, RuleCounts{TotalHits: 2, OverLimit: 2}},
		{"over, shadow", shadow, 13, 6, false, RuleCounts{TotalHits: 6, OverLimit: 3, NearLimit: 2, ShadowMode: 3}},
		{"over in the local cache", nil, 10 + 4, 4, false, RuleCounts{TotalHits: 4, OverLimit: 4}},
	}
	for _, tc := range tests {
		d := counter.Decision{Allowed: tc.allowed, Used: float64(tc.after)}
		got := ev.counts(item{rule: rule, node: tc.node}, tc.cost, &d)
		if got != tc.want {
			t.Errorf("%s: counts %+v, want %+v", tc.name, got, tc.want)
		}
	}
	if _, err := NewEvaluator(Options{Store: counter.NewMemoryStore(counter.MemoryOptions{}), Keys: KeyFormat(7)}); err == nil {
		t.Error("NewEvaluator accepted an unknown key format")
	}
}

// TestReferenceKeysLoad: with KeysReference, a limit of another algorithm
// than the fixed window is refused at load, naming its file, line and
// field.
func TestReferenceKeysLoad(t *testing.T) {
	src := `domain: d
descriptors:
  - key: a
    rate_limit: {unit: minute, requests_per_unit: 5}
  - key: b
    descriptors:
      - key: c
        rate_limit: {unit: minute, requests_per_unit: 5, algorithm: gcra}
  - key: e
    rate_limits:
      - {unit: second, requests_per_unit: 3}
      - {unit: hour, requests_per_unit: 4, algorithm: sliding_window}
`
	files := []File{{Key: "config.t", Data: []byte(src)}}
	if _, err := Load(files, LoadOptions{}); err != nil {
		t.Fatalf("rlpkit's keys: %v", err)
	}
	_, err := Load(files, LoadOptions{Keys: KeysReference})
	want := "config.t:7: descriptors[1].descriptors[0].rate_limit.algorithm: algorithm gcra cannot be counted with the reference's Redis keys, which count fixed windows only\n" +
		"config.t:9: descriptors[2].rate_limits[1].algorithm: algorithm sliding_window cannot be counted with the reference's Redis keys, which count fixed windows only"
	if err == nil || err.Error() != want {
		t.Errorf("Load with KeysReference: %v\nwant %s", err, want)
	}
}
