package ratelimit_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/envoyratelimit"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// TestExamples loads the example configurations as the drop-in reads them
// and checks answers the reference's README documents.
func TestExamples(t *testing.T) {
	load := func(app string) *envoyratelimit.Config {
		files, err := envoyratelimit.ReadDir(envoyratelimit.DirOptions{Root: ".", AppDirectory: app})
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := envoyratelimit.Load(files, envoyratelimit.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	cfg, ext := load("config"), load("extensions/config")
	if len(ext.Domains()) != 1 {
		t.Fatalf("extensions: %d domains, want 1", len(ext.Domains()))
	}
	ev, err := envoyratelimit.NewEvaluator(envoyratelimit.Options{Store: counter.NewMemoryStore(counter.MemoryOptions{})})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	d := func(kv ...string) rlsmsg.Descriptor {
		var out rlsmsg.Descriptor
		for i := 0; i < len(kv); i += 2 {
			out.Entries = append(out.Entries, rlsmsg.Entry{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	tests := []struct {
		name   string
		domain string
		desc   rlsmsg.Descriptor
		want   string // "CODE limit" of the status
	}{
		{"example 1", "mongo_cps", d("database", "users"), "1 500/SECOND"},
		{"example 2 nested", "messaging", d("message_type", "marketing", "to_number", "2061111111"), "1 5/DAY"},
		{"example 2 key-only", "messaging", d("to_number", "2061111111"), "1 100/DAY"},
		{"example 3 per IP", "edge_proxy_per_ip", d("remote_address", "10.0.0.1"), "1 10/SECOND"},
		{"example 3 black list", "edge_proxy_per_ip", d("remote_address", "50.0.0.5"), "2 0/SECOND"},
		{"example 4 shadow", "shadow", d("key", "value"), "1 1/SECOND"},
		{"example 5 exact beats wildcard", "wildcards", d("path", "/foo/bar"), "1 10/MINUTE"},
		{"example 5 wildcard", "wildcards", d("path", "/foo/baz"), "1 20/MINUTE"},
		{"example 5 unlimited", "wildcards", d("team", "internal"), "1 none"},
		{"example 5 whitelist", "wildcards", d("healthcheck", "x"), "1 none"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var resp limit.Result
			err := ev.WithConfig(cfg).Evaluate(context.Background(), now, &rlsmsg.Request{Domain: tc.domain, Descriptors: []rlsmsg.Descriptor{tc.desc}}, &resp)
			if err != nil {
				t.Fatal(err)
			}
			st := resp.Statuses[0]
			got := "none"
			if st.CurrentLimit != nil {
				got = fmt.Sprintf("%d/%v", st.CurrentLimit.RequestsPerUnit, st.CurrentLimit.Unit)
			}
			got = fmt.Sprintf("%d %s", st.Code, got)
			if got != tc.want {
				t.Errorf("Evaluate(%s %v) = %s, want %s", tc.domain, tc.desc.Entries, got, tc.want)
			}
		})
	}
}
