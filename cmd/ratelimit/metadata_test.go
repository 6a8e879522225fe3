package main

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/structpb"
)

// TestResponseDynamicMetadata: RESPONSE_DYNAMIC_METADATA=true sends the
// reference's dynamic_metadata over gRPC; without it none is sent.
func TestResponseDynamicMetadata(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "ratelimit", "config", "m.yaml"), `domain: m
descriptors:
  - key: k
    metadata: {team: a, limits: {tier: gold}}
    rate_limit: {unit: hour, requests_per_unit: 5}
`)
	env := baseEnv(root)
	env["RESPONSE_DYNAMIC_METADATA"] = "true"
	s := start(t, env)
	got, err := s.call(t, "m", "k=v", "other=x")
	if err != nil {
		t.Fatal(err)
	}
	want, err := structpb.NewStruct(map[string]any{
		"domain":      "m",
		"descriptors": []any{map[string]any{"entries": []any{"k=v"}}, map[string]any{"entries": []any{"other=x"}}},
		"metadata":    map[string]any{"team": "a", "limits": map[string]any{"tier": "gold"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got.GetDynamicMetadata(), protocmp.Transform()); diff != "" {
		t.Errorf("dynamic_metadata (-want +got):\n%s", diff)
	}

	delete(env, "RESPONSE_DYNAMIC_METADATA")
	if got, err := start(t, env).call(t, "m", "k=v"); err != nil || got.GetDynamicMetadata() != nil {
		t.Errorf("without RESPONSE_DYNAMIC_METADATA: dynamic_metadata %v, %v; want none", got.GetDynamicMetadata(), err)
	}
}
