package envoyratelimit

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// loadErrors returns the messages of Load's errors, one per problem.
func loadErrors(t *testing.T, files []File, o LoadOptions) []string {
	t.Helper()
	cfg, err := Load(files, o)
	if err == nil {
		return nil
	}
	if cfg != nil {
		t.Errorf("Load() = %v with error %v, want a nil config", cfg, err)
	}
	var out []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var le *LoadError
		if !errors.As(e, &le) {
			t.Errorf("error %v is a %T, want *LoadError", e, e)
		}
		out = append(out, e.Error())
	}
	return out
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want []string
	}{
		{"yaml syntax", "domain: [", []string{"config.f.yaml: error loading config file: yaml: line 1: did not find expected node content"}},
		{"empty file", "", []string{"config.f.yaml: config file cannot have empty domain"}},
		{"empty domain", "descriptors: []\n", []string{"config.f.yaml:1: domain: config file cannot have empty domain"}},
		{"key not string", "domain: d\n1: x\n", []string{"config.f.yaml:2: config error, key is not of type string: 1"}},
		{"unknown top key", "domain: d\nfoo: x\n", []string{"config.f.yaml:2: foo: config error, unknown key 'foo'"}},
		{"unknown descriptor key", "domain: d\ndescriptors:\n- key: k\n  bar: 1\n",
			[]string{"config.f.yaml:4: descriptors[0].bar: config error, unknown key 'bar'"}},
		{"unknown rate_limit key", "domain: d\ndescriptors:\n- key: k\n  rate_limit: {unit: second, requests_per_unit: 1, per: 2}\n",
			[]string{"config.f.yaml:4: descriptors[0].rate_limit.per: config error, unknown key 'per'"}},
		{"list of scalars", "domain: d\ndescriptors: [a]\n",
			[]string{"config.f.yaml:2: descriptors[0]: config error, yaml file contains list of type other than map: a"}},
		{"float leaf", "domain: d\ndescriptors:\n- key: k\n  rate_limit: {unit: second, requests_per_unit: 1.5}\n",
			[]string{"config.f.yaml:4: descriptors[0].rate_limit.requests_per_unit: error checking config"}},
		{"string count", "domain: d\ndescriptors:\n- key: k\n  rate_limit: {unit: second, requests_per_unit: ten}\n",
			[]string{"config.f.yaml:4: descriptors[0].rate_limit.requests_per_unit: error loading config file: line 4: cannot unmarshal !!str `ten` into uint32"}},
		{"negative count", "domain: d\ndescriptors:\n- key: k\n  rate_limit: {unit: second, requests_per_unit: -1}\n",
			[]string{"config.f.yaml:4: descriptors[0].rate_limit.requests_per_unit: error loading config file: line 4: cannot unmarshal !!int `-1` into uint32"}},
		{"empty key", "domain: d\ndescriptors:\n- value: v\n",
			[]string{"config.f.yaml:3: descriptors[0].key: descriptor has empty key"}},
		{"duplicate composite key", "domain: d\ndescriptors:\n- key: k\n  value: v\n- key: k\n  value: v\n",
			[]string{"config.f.yaml:5: descriptors: duplicate descriptor composite key 'd.k_v'"}},
		{"duplicate nested composite key", "domain: d\ndescriptors:\n- key: a\n  descriptors:\n  - key: b\n  - key: b\n",
			[]string{"config.f.yaml:6: descriptors: duplicate descriptor composite key 'd.a.b'"}},
		{"unlimited with unit", "domain: d\ndescriptors:\n- key: k\n  rate_limit: {unlimited: true, unit: second}\n",
			[]string{"config.f.yaml:4: descriptors[0].rate_limit.unit: should not specify rate limit unit when unlimited"}},
		{"invalid unit", "domain: d\ndescriptors:\n- key: k\n  rate_limit: {unit: fortnight, requests_per_unit: 1}\n",
			[]string{"config.f.yaml:4: descriptors[0].rate_limit.unit: invalid rate limit unit 'fortnight'"}},
		{"unknown unit is invalid", "domain: d\ndescriptors:\n- key: k\n  rate_limit: {unit: unknown, requests_per_unit: 1}\n",
			[]string{"config.f.yaml:4: descriptors[0].rate_limit.unit: invalid rate limit unit 'unknown'"}},
		{"missing unit", "domain: d\ndescriptors:\n- key: k\n  rate_limit: {requests_per_unit: 1}\n",
			[]string{"config.f.yaml:4: descriptors[0].rate_limit.unit: invalid rate limit unit ''"}},
		{"empty replaces", "domain: d\ndescriptors:\n- key: k\n  rate_limit:\n    unit: second\n    requests_per_unit: 1\n    replaces: [{name: ''}]\n",
			[]string{"config.f.yaml:7: descriptors[0].rate_limit.replaces[0]: should not have an empty replaces entry"}},
		{"replaces itself", "domain: d\ndescriptors:\n- key: k\n  rate_limit:\n    name: a\n    unit: second\n    requests_per_unit: 1\n    replaces: [{name: a}]\n",
			[]string{"config.f.yaml:5: descriptors[0].rate_limit.replaces: replaces should not contain name of same descriptor"}},
		{"share_threshold without wildcard", "domain: d\ndescriptors:\n- key: k\n  value: v\n  share_threshold: true\n  rate_limit: {unit: second, requests_per_unit: 1}\n",
			[]string{"config.f.yaml:3: descriptors[0].share_threshold: share_threshold can only be used with wildcard values (containing '*'), but found key 'k_v'"}},
		{"unknown algorithm", "domain: d\ndescriptors:\n- key: k\n  rate_limit: {unit: second, requests_per_unit: 1, algorithm: leaky}\n",
			[]string{`config.f.yaml:4: descriptors[0].rate_limit.algorithm: unknown algorithm "leaky": want fixed_window, sliding_window, token_bucket or gcra`}},
		{"zero unit_multiplier", "domain: d\ndescriptors:\n- key: k\n  rate_limit: {unit: second, requests_per_unit: 1, unit_multiplier: 0}\n",
			[]string{"config.f.yaml:4: descriptors[0].rate_limit.unit_multiplier: unit_multiplier must be at least 1"}},
		{"rate_limit and rate_limits", "domain: d\ndescriptors:\n- key: k\n  rate_limit: {unit: second, requests_per_unit: 1}\n  rate_limits: [{unit: hour, requests_per_unit: 9}]\n",
			[]string{"config.f.yaml:5: descriptors[0].rate_limits: rate_limit and rate_limits cannot both be set: move the limit of rate_limit into rate_limits"}},
		{"every problem reported", "domain: d\ndescriptors:\n- key: k\n  x: 1\n  rate_limit: {unit: eon}\n- value: v\n",
			[]string{
				"config.f.yaml:4: descriptors[0].x: config error, unknown key 'x'",
				"config.f.yaml:5: descriptors[0].rate_limit.unit: invalid rate limit unit 'eon'",
				"config.f.yaml:6: descriptors[1].key: descriptor has empty key",
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := loadErrors(t, []File{{Key: "config.f.yaml", Data: []byte(tc.yaml)}}, LoadOptions{})
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Load(%q) errors (-want +got):\n%s", tc.yaml, diff)
			}
		})
	}
}

func TestLoadDomains(t *testing.T) {
	a := File{Key: "config.a.yaml", Data: []byte("domain: d\ndescriptors:\n- key: a\n  rate_limit: {unit: second, requests_per_unit: 1}\n")}
	b := File{Key: "config.b.yaml", Data: []byte("domain: d\ndescriptors:\n- key: b\n  rate_limit: {unit: second, requests_per_unit: 1}\n")}
	dupA := File{Key: "config.c.yaml", Data: []byte("domain: d\ndescriptors:\n- key: a\n")}
	tests := []struct {
		name  string
		files []File
		merge bool
		want  []string
	}{
		{"same domain twice", []File{a, b}, false, []string{"config.b.yaml:1: domain: duplicate domain 'd' in config file"}},
		{"merged", []File{a, b}, true, nil},
		{"merged duplicate composite key", []File{a, dupA}, true, []string{"config.c.yaml:3: descriptors: duplicate descriptor composite key 'd.a'"}},
		{"one bad file rejects all", []File{a, {Key: "config.z", Data: []byte("domain: z\nq: 1\n")}}, false, []string{"config.z:2: q: config error, unknown key 'q'"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := loadErrors(t, tc.files, LoadOptions{MergeDomains: tc.merge})
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Load() errors (-want +got):\n%s", diff)
			}
		})
	}
	cfg, err := Load([]File{a, b}, LoadOptions{MergeDomains: true})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, n := range cfg.Domain("d").Descriptors() {
		keys = append(keys, n.StatsKey)
	}
	if diff := cmp.Diff([]string{"d.a", "d.b"}, keys); diff != "" {
		t.Errorf("merged descriptors (-want +got):\n%s", diff)
	}
}

func TestLoadSchema(t *testing.T) {
	src := `domain: d
descriptors:
  - key: k
    value: "v*"
    share_threshold: true
    shadow_mode: true
    quota_mode: false
    detailed_metric: true
    value_to_metric: true
    metadata: {team: a, n: 1}
    rate_limit:
      name: r
      unit: HOUR
      requests_per_unit: 7
      unit_multiplier: 2
      algorithm: gcra
      replaces: [{name: other}]
    descriptors:
      - key: inner
        rate_limits:
          - {unit: second, requests_per_unit: 1}
          - {unit: Minute, requests_per_unit: 10}
  - key: free
  - key: all
    rate_limit: {unlimited: true}
`
	cfg, err := Load([]File{{Key: "config.x", Data: []byte(src)}}, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := cfg.Domain("d")
	k := d.Descriptors()[0]
	got := []any{k.Key, k.Value, k.ShareThreshold, k.ShadowMode, k.DetailedMetric, k.ValueToMetric, k.Metadata["team"],
		*k.Limits[0], len(k.Children()[0].Limits), k.Children()[0].Limits[1].Unit, k.Children()[0].StatsKey,
		len(d.Descriptors()[1].Limits), d.Descriptors()[2].Limits[0].Unlimited}
	want := []any{"k", "v*", true, true, true, true, "a",
		Rule{Name: "r", Unit: UnitHour, RequestsPerUnit: 7, UnitMultiplier: 2, Algorithm: 3, Replaces: []string{"other"}},
		2, UnitMinute, "d.k_v*.inner", 0, true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("loaded (-want +got):\n%s", diff)
	}
	if w := k.Limits[0].Window().String(); w != "2h0m0s" {
		t.Errorf("Window() = %s, want 2h0m0s", w)
	}
}

func TestLoadErrorHasReferenceMessage(t *testing.T) {
	_, err := Load([]File{{Key: "config.k", Data: []byte("domain: d\nzz: 1\n")}}, LoadOptions{})
	if err == nil || !strings.HasSuffix(err.Error(), "config error, unknown key 'zz'") {
		t.Errorf("Load() = %v, want the reference's message", err)
	}
}

func TestDump(t *testing.T) {
	cfg := mustLoad(t, `domain: d
descriptors:
  - key: a
    value: x
    shadow_mode: true
    rate_limit: {unit: day, requests_per_unit: 5, name: n}
    descriptors:
      - key: b
        rate_limits: [{unit: second, requests_per_unit: 1, unit_multiplier: 10, algorithm: gcra}]
  - key: c
    rate_limit: {unlimited: true}
  - key: w
`)
	want := "d.a_x: unit=DAY requests_per_unit=5 name=n, shadow_mode: true\n" +
		"d.a_x.b: unit=SECOND requests_per_unit=1 unit_multiplier=10 algorithm=gcra, shadow_mode: false\n" +
		"d.c: unlimited, shadow_mode: false\n"
	if got := cfg.Dump(); got != want {
		t.Errorf("Dump() = %q, want %q", got, want)
	}
}
