package envoyratelimit

import (
	"strings"
	"testing"

	rlv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/rlpkit/rlpkit/rlsmsg"
)

const metadataConfig = `domain: d
descriptors:
  - key: a
    metadata: {team: alpha, tags: {tier: gold, region: eu}, list: [1, two]}
    rate_limit: {unit: minute, requests_per_unit: 10}
  - key: b
    metadata: {team: beta, tags: {tier: silver, zone: z1}, extra: true, 7: seven}
    rate_limit: {unit: minute, requests_per_unit: 10}
  - key: over
    quota_mode: true
    metadata: {over: yes}
    rate_limit: {unit: minute, requests_per_unit: 0}
  - key: free
    metadata: {free: 1}
    rate_limit: {unlimited: true}
  - key: white
    metadata: {white: 1}
`

// TestEvaluateDynamicMetadata: RESPONSE_DYNAMIC_METADATA fills the
// response's dynamic_metadata with the structure the reference's
// ratelimitToMetadata builds.
func TestEvaluateDynamicMetadata(t *testing.T) {
	cfg := mustLoad(t, metadataConfig)
	ev := newQuotaEvaluator(t, Options{DynamicMetadata: true})
	two := uint64(2)
	override := desc("o", "1")
	override.Limit, override.HitsAddend = &Override{RequestsPerUnit: 5, Unit: UnitMinute}, &two
	zero := uint64(0)
	check := desc("a", "y")
	check.HitsAddend = &zero
	tests := []struct {
		name string
		req  Request
		want map[string]any
	}{
		{"passed rules merged, the first value kept, maps merged", Request{Domain: "d", HitsAddend: 3,
			Descriptors: []Descriptor{desc("a", "x"), desc("b", "x"), desc("over", "x"), desc("free", "x"), desc("white", "x"), override, check}},
			map[string]any{"domain": "d", "hitsAddend": 3.0,
				"descriptors": []any{
					map[string]any{"entries": []any{"a=x"}}, map[string]any{"entries": []any{"b=x"}},
					map[string]any{"entries": []any{"over=x"}}, map[string]any{"entries": []any{"free=x"}},
					map[string]any{"entries": []any{"white=x"}},
					map[string]any{"entries": []any{"o=1"}, "limit": "requests_per_unit:5 unit:MINUTE", "hitsAddend": 2.0},
					map[string]any{"entries": []any{"a=y"}, "hitsAddend": 0.0},
				},
				"metadata": map[string]any{"team": "alpha", "tags": map[string]any{"tier": "gold", "region": "eu", "zone": "z1"},
					"list": []any{1, "two"}, "extra": true, "7": "seven"},
			}},
		{"a rule's own metadata is not changed by a merge", req(desc("a", "z")),
			map[string]any{"domain": "d", "descriptors": []any{map[string]any{"entries": []any{"a=z"}}},
				"metadata": map[string]any{"team": "alpha", "tags": map[string]any{"tier": "gold", "region": "eu"}, "list": []any{1, "two"}}}},
		{"no rule passed: no metadata field", req(desc("over", "x"), desc("k", "v")),
			map[string]any{"domain": "d", "descriptors": []any{map[string]any{"entries": []any{"over=x"}}, map[string]any{"entries": []any{"k=v"}}}}},
		{"an unknown domain", Request{Domain: "other", Descriptors: []Descriptor{desc("a", "x")}},
			map[string]any{"domain": "other", "descriptors": []any{map[string]any{"entries": []any{"a=x"}}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := evaluate(ev, cfg, t0, &tc.req)
			if err != nil {
				t.Fatal(err)
			}
			var st structpb.Struct
			if err := proto.Unmarshal(got.DynamicMetadata, &st); err != nil || got.DynamicMetadata == nil {
				t.Fatalf("dynamic metadata %x is not a Struct: %v", got.DynamicMetadata, err)
			}
			want, err := structpb.NewStruct(tc.want)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, &st, protocmp.Transform()); diff != "" {
				t.Errorf("dynamic metadata (-want +got):\n%s", diff)
			}
		})
	}
	// Off by default.
	r := req(desc("a", "x"))
	if got, err := evaluate(newQuotaEvaluator(t, Options{}), cfg, t0, &r); err != nil || got.DynamicMetadata != nil {
		t.Errorf("without the option: dynamic metadata %x, %v; want none", got.DynamicMetadata, err)
	}
}

// TestOverrideText: an override is written as protobuf-go writes the
// RateLimitOverride (whose String() adds a space at random places, per
// binary: compared with spaces collapsed).
func TestOverrideText(t *testing.T) {
	ten, zero := uint32(10), uint32(0)
	for _, tc := range []struct {
		o *rlsmsg.Override
		g *rlv3.RateLimitDescriptor_RateLimitOverride
	}{
		{&rlsmsg.Override{RequestsPerUnit: 5, Unit: rlsmsg.UnitMinute}, &rlv3.RateLimitDescriptor_RateLimitOverride{RequestsPerUnit: 5, Unit: typev3.RateLimitUnit_MINUTE}},
		{&rlsmsg.Override{Unit: rlsmsg.UnitYear}, &rlv3.RateLimitDescriptor_RateLimitOverride{Unit: typev3.RateLimitUnit_YEAR}},
		{&rlsmsg.Override{RequestsPerUnit: 1, Unit: rlsmsg.UnitSecond, UnitMultiplier: &ten}, &rlv3.RateLimitDescriptor_RateLimitOverride{RequestsPerUnit: 1, Unit: typev3.RateLimitUnit_SECOND, UnitMultiplier: wrapperspb.UInt32(10)}},
		{&rlsmsg.Override{RequestsPerUnit: 3, UnitMultiplier: &zero}, &rlv3.RateLimitDescriptor_RateLimitOverride{RequestsPerUnit: 3, UnitMultiplier: wrapperspb.UInt32(0)}},
		{&rlsmsg.Override{}, &rlv3.RateLimitDescriptor_RateLimitOverride{}},
	} {
		want := strings.Join(strings.Fields(tc.g.String()), " ")
		if got := overrideText(tc.o); got != want {
			t.Errorf("overrideText(%+v) = %q, want %q", tc.o, got, want)
		}
	}
}

func TestLoadMetadataErrors(t *testing.T) {
	_, err := Load([]File{{Key: "config.t", Data: []byte("domain: d\ndescriptors:\n  - key: k\n    metadata: {b: !!binary /w==}\n")}}, LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), "config.t:4: descriptors[0].metadata: error parsing metadata: struct value at \".b\" is not UTF-8") {
		t.Errorf("Load(metadata not UTF-8) = %v", err)
	}
}
