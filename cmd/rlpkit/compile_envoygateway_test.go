package main

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"testing"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/envoygateway"
	"github.com/rlpkit/rlpkit/limit/envoyratelimit"
	"github.com/rlpkit/rlpkit/policy"
)

// TestSplitServes writes the example's rate-limit configuration with compile -o
// envoy-gateway --split, one file per domain, loads the directory as envoyproxy/ratelimit's
// runtime directory (limit/envoyratelimit, which cmd/ratelimit reads) and serves it with
// rlpkit serve --ratelimit-config: the checkout's descriptors are admitted 5 times a
// minute.
func TestSplitServes(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "config")
	example := filepath.Join("..", "..", "examples", "envoy-gateway")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"compile", "-o", "envoy-gateway", "--split", dir, example}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("compile: exit %d\n%s", code, stderr.String())
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	want := []string{"infra_edge_http.yaml", "shop_checkout.yaml"}
	if len(names) != len(want) || names[0] != want[0] || names[1] != want[1] {
		t.Fatalf("--split wrote %v, want %v", names, want)
	}
	files, err := envoyratelimit.ReadDir(envoyratelimit.DirOptions{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := envoyratelimit.Load(files, envoyratelimit.LoadOptions{})
	if err != nil {
		t.Fatalf("the split files do not load: %v", err)
	}
	if cfg.Domain("shop/checkout") == nil || cfg.Domain("infra/edge/http") == nil {
		t.Fatalf("domains %v, want shop/checkout and infra/edge/http", cfg.Domains())
	}

	set, err := policy.Read([]string{example}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := envoygateway.Compile(set)
	if err != nil {
		t.Fatal(err)
	}
	ev := res.Gateway("infra/edge").Evaluate(&descriptor.Request{Method: "POST", Host: "www.shop.example", Path: "/checkout",
		Headers: descriptor.HeaderMap{"x-user-id": {"u-7"}}}, 80)
	if len(ev.Calls) != 1 {
		t.Fatalf("calls %+v, want the checkout's", ev.Calls)
	}
	call := ev.Calls[0].Request
	req := &rlsv3.RateLimitRequest{Domain: call.Domain}
	for _, d := range call.Descriptors {
		var kv []string
		for _, e := range d.Entries {
			kv = append(kv, e.Key, e.Value)
		}
		req.Descriptors = append(req.Descriptors, rlsDesc(kv...))
	}
	s := startServe(t, "--ratelimit-config", dir, "--addr", "127.0.0.1:0")
	for i := range 6 {
		want := rlsv3.RateLimitResponse_OK
		if i == 5 {
			want = rlsv3.RateLimitResponse_OVER_LIMIT
		}
		if r := s.mustCall(t, req); r.OverallCode != want {
			t.Fatalf("call %d = %v, want %v", i+1, r, want)
		}
	}
}
