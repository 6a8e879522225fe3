package envoyratelimit

import (
	"context"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// TestReloadLoweredTokenBucket reloads a token bucket rule with fewer
// requests_per_unit over the same store (WithConfig, as cmd/ratelimit's
// reload does): the rule keeps its counter, and the counter lives as long
// as the new rate needs it. 4 of 10 tokens are taken (10 per 10 s); 4 s
// later the rule allows 5, the store has swept its expired counters, and 5
// requests get 3 OK, as deciding over the kept state does.
func TestReloadLoweredTokenBucket(t *testing.T) {
	load := func(perUnit string) *Config {
		t.Helper()
		src := "domain: d\ndescriptors:\n- key: user\n  rate_limit: {unit: second, unit_multiplier: 10, requests_per_unit: " + perUnit + ", algorithm: token_bucket}\n"
		cfg, err := Load([]File{{Key: "config.d", Data: []byte(src)}}, LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	store := counter.NewMemoryStore(counter.MemoryOptions{})
	e, err := NewEvaluator(Options{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	before, after := e.WithConfig(load("10")), e.WithConfig(load("5"))
	t0 := time.Unix(1_699_920_000, 0)
	req := rlsmsg.Request{Domain: "d", Descriptors: []rlsmsg.Descriptor{{Entries: []rlsmsg.Entry{{Key: "user", Value: "alice"}}}}}
	code := func(ev *Evaluator, at time.Time) rlsmsg.Code {
		t.Helper()
		res := new(limit.Result)
		if err := ev.Evaluate(context.Background(), at, &req, res); err != nil {
			t.Fatal(err)
		}
		return res.OverallCode
	}
	for i := range 4 {
		if got := code(before, t0); got != rlsmsg.CodeOK {
			t.Fatalf("request %d at 10 per 10 s: %v, want OK", i, got)
		}
	}
	at := t0.Add(4 * time.Second)
	store.Sweep(at)
	want := []rlsmsg.Code{rlsmsg.CodeOK, rlsmsg.CodeOK, rlsmsg.CodeOK, rlsmsg.CodeOverLimit, rlsmsg.CodeOverLimit}
	for i, w := range want {
		if got := code(after, at); got != w {
			t.Errorf("request %d at t0+4s at 5 per 10 s: %v, want %v", i, got, w)
		}
	}
}
