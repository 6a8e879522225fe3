package envoyratelimit

import (
	"testing"
)

func TestDomainConfigMarshal(t *testing.T) {
	c := &DomainConfig{Domain: "d", Descriptors: []*DescriptorConfig{
		{Key: "a", Value: "x", ShadowMode: true, Descriptors: []*DescriptorConfig{
			{Key: "b", RateLimit: &LimitConfig{Unit: "MINUTE", RequestsPerUnit: 5, Name: "per-b", Replaces: []ReplaceConfig{{Name: "other"}}}},
		}},
		{Key: "m", QuotaMode: true, DetailedMetric: true, Metadata: map[string]any{"z": 1.5, "a": []any{"x", true}},
			RateLimits: []*LimitConfig{{Unit: "SECOND", RequestsPerUnit: 1, UnitMultiplier: 10, Algorithm: "gcra"}}},
		{Key: "free", RateLimit: &LimitConfig{Unit: "UNKNOWN", Unlimited: true}},
		{Key: "zero", RateLimit: &LimitConfig{Unit: "SECOND"}},
	}}
	const want = `descriptors:
- descriptors:
  - key: b
    rate_limit:
      name: per-b
      replaces:
      - name: other
      requests_per_unit: 5
      unit: MINUTE
  key: a
  shadow_mode: true
  value: x
- detailed_metric: true
  key: m
  metadata:
    a:
    - x
    - true
    z: 1.5
  quota_mode: true
  rate_limits:
  - algorithm: gcra
    requests_per_unit: 1
    unit: SECOND
    unit_multiplier: 10
- key: free
  rate_limit:
    requests_per_unit: 0
    unit: UNKNOWN
    unlimited: true
- key: zero
  rate_limit:
    requests_per_unit: 0
    unit: SECOND
domain: d
`
	got, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("Marshal:\n%s\nwant:\n%s", got, want)
	}
	cfg, err := Load([]File{{Key: "config.w", Data: got}}, LoadOptions{})
	if err != nil {
		t.Fatalf("Load(Marshal) = %v", err)
	}
	const dump = "d.a_x.b: unit=MINUTE requests_per_unit=5 name=per-b, shadow_mode: false\n" +
		"d.m: unit=SECOND requests_per_unit=1 unit_multiplier=10 algorithm=gcra, shadow_mode: false\n" +
		"d.free: unlimited, shadow_mode: false\n" +
		"d.zero: unit=SECOND requests_per_unit=0, shadow_mode: false\n"
	if got := cfg.Dump(); got != dump {
		t.Fatalf("Dump of the written file:\n%s\nwant:\n%s", got, dump)
	}
	a := cfg.Domain("d").Descriptors()[0]
	if !a.ShadowMode || a.Children()[0].Limits[0].Replaces[0] != "other" {
		t.Fatalf("the written file loads as %+v", a)
	}
}

// TestDomainConfigMarshalStrings: values that YAML would read as numbers,
// booleans or null are written so that they load back as the same strings.
func TestDomainConfigMarshalStrings(t *testing.T) {
	values := []string{"yes", "no", "on", "true", "1e3", "0o10", "0x1F", "1.5", "12", "null", "~", "*", "a: b", "- x", "#c", " lead", "&a", "*a", "!t", "%x", "@x", "`x", "'q'", `"d"`, "tab\there", "line\nbreak"}
	c := &DomainConfig{Domain: "d"}
	for i, v := range values {
		c.Descriptors = append(c.Descriptors, &DescriptorConfig{Key: "k" + string(rune('a'+i)), Value: v})
	}
	data, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := Load([]File{{Key: "config.s", Data: data}}, LoadOptions{})
	if err != nil {
		t.Fatalf("Load(Marshal) = %v\n%s", err, data)
	}
	for i, n := range cfg.Domain("d").Descriptors() {
		if n.Value != values[i] {
			t.Errorf("value %q loads back as %q", values[i], n.Value)
		}
	}
}
