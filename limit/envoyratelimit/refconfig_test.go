package envoyratelimit

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlpkit/rlpkit/limit/counter"
)

// These tests restate the reference's test/config suite (what its
// GetLimit finds for a descriptor, and under which statistics key) through
// Evaluate and Options.Observe; cmd/ratelimit/testdata/reference-suite.md
// maps each reference test to its restatement.

// found is what one descriptor matched: its limit, "" for none, written
// "RPU/UNIT name=NAME", "unlimited", and the statistics key it counts in.
type found struct {
	limit string
	stats string
}

// lookup evaluates one request of domain with one descriptor of entries
// (k, v, k, v...) and reports what it matched.
func lookup(t *testing.T, cfg *Config, domain string, kv ...string) found {
	t.Helper()
	var stats []string
	ev, err := NewEvaluator(Options{Store: counter.NewMemoryStore(counter.MemoryOptions{}), Observe: func(s Stat, _ RuleCounts) {
		stats = append(stats, s.Key)
	}})
	if err != nil {
		t.Fatal(err)
	}
	r := Request{Domain: domain, Descriptors: []Descriptor{desc(kv...)}}
	res, err := evaluate(ev, cfg, t0, &r)
	if err != nil {
		t.Fatal(err)
	}
	var f found
	st := res.Statuses[0]
	switch {
	case st.CurrentLimit != nil:
		f.limit = uitoa(uint64(st.CurrentLimit.RequestsPerUnit)) + "/" + st.CurrentLimit.Unit.String()
		if st.CurrentLimit.Name != "" {
			f.limit += " name=" + st.CurrentLimit.Name
		}
	case st.LimitRemaining == 1<<32-1:
		f.limit = "unlimited"
	}
	f.stats = strings.Join(stats, ",")
	return f
}

type lookupCase struct {
	domain string
	kv     []string
	want   found
}

func runLookups(t *testing.T, cfg *Config, cases []lookupCase) {
	t.Helper()
	for _, c := range cases {
		if got := lookup(t, cfg, c.domain, c.kv...); got != c.want {
			t.Errorf("%s %v: got %+v, want %+v", c.domain, c.kv, got, c.want)
		}
	}
}

func kv(s ...string) []string { return s }

// TestRefBasicConfig restates TestBasicConfig: what a nested configuration
// matches, and the configured statistics keys (detailed_metric's with the
// request's value).
func TestRefBasicConfig(t *testing.T) {
	cfg := mustLoad(t, `domain: shop
descriptors:
  - key: tier
    value: gold
    descriptors:
      - key: item
        rate_limit: {unit: second, requests_per_unit: 5}
      - key: item
        value: book
        rate_limit: {unit: second, requests_per_unit: 10}
  - key: region
    rate_limit: {unit: minute, requests_per_unit: 20}
  - key: region
    value: north
    rate_limit: {unit: minute, requests_per_unit: 30}
  - key: region
    value: south
    descriptors:
      - key: zone
        rate_limit: {unit: minute, requests_per_unit: 40}
  - key: cart
    rate_limit: {unit: hour, requests_per_unit: 1}
  - key: coupon
    rate_limit: {name: coupon_rate_limit, unit: day, requests_per_unit: 1}
  - key: staff
    rate_limit: {unlimited: true}
  - key: visitor
    detailed_metric: true
    rate_limit: {unit: minute, requests_per_unit: 70}
`)
	none := found{}
	runLookups(t, cfg, []lookupCase{
		{"elsewhere", kv("tier", "gold"), none},
		{"shop", kv("tier", "silver"), none},
		{"shop", kv("tier", "gold"), none}, // not deep enough
		{"shop", kv("region", "south", "zone", "z1", "x", "y"), none},
		{"shop", kv("region", "north", "zone", "z1"), none}, // north has no children
		{"shop", kv("tier", "gold", "item", "pen"), found{"5/SECOND", "shop.tier_gold.item"}},
		{"shop", kv("tier", "gold", "item", "book"), found{"10/SECOND", "shop.tier_gold.item_book"}},
		{"shop", kv("region", "west"), found{"20/MINUTE", "shop.region"}},
		{"shop", kv("region", "north"), found{"30/MINUTE", "shop.region_north"}},
		{"shop", kv("region", "south"), none}, // south has a limit only below it
		{"shop", kv("cart", "c1"), found{"1/HOUR", "shop.cart"}},
		{"shop", kv("coupon", "c1"), found{"1/DAY name=coupon_rate_limit", "shop.coupon"}},
		{"shop", kv("staff", "s1"), found{"unlimited", ""}},
		{"shop", kv("visitor", "v1"), found{"70/MINUTE", "shop.visitor_v1"}},
		{"shop", kv("visitor", "v2"), found{"70/MINUTE", "shop.visitor_v2"}},
	})
}

// TestRefDomainMerge restates TestDomainMerge: with MERGE_DOMAIN_CONFIG,
// two files of one domain are one tree.
func TestRefDomainMerge(t *testing.T) {
	cfg, err := Load([]File{
		{Key: "config.one", Data: []byte("domain: m\ndescriptors:\n  - key: a\n    value: '1'\n    rate_limit: {unit: minute, requests_per_unit: 10}\n")},
		{Key: "config.two", Data: []byte("domain: m\ndescriptors:\n  - key: b\n    value: '2'\n    rate_limit: {unit: minute, requests_per_unit: 20}\n")},
	}, LoadOptions{MergeDomains: true})
	if err != nil {
		t.Fatal(err)
	}
	runLookups(t, cfg, []lookupCase{
		{"m", kv("a", "1"), found{"10/MINUTE", "m.a_1"}},
		{"m", kv("b", "2"), found{"20/MINUTE", "m.b_2"}},
	})
}

// TestRefLimitOverride restates TestConfigLimitOverride: an override is
// counted under the request's entries, the same key whatever its limit, a
// key of its own for other values; in an unknown domain it is ignored.
func TestRefLimitOverride(t *testing.T) {
	cfg := mustLoad(t, "domain: o\ndescriptors:\n  - key: a\n    value: '1'\n    descriptors:\n      - key: b\n        rate_limit: {unit: second, requests_per_unit: 5}\n")
	counts := map[string]uint64{}
	ev, err := NewEvaluator(Options{Store: counter.NewMemoryStore(counter.MemoryOptions{}), Observe: func(s Stat, c RuleCounts) {
		counts[s.Key] += c.TotalHits
	}})
	if err != nil {
		t.Fatal(err)
	}
	send := func(domain, value string, rpu uint32, unit Unit) *Response {
		d := desc("a", "1", "b", value)
		d.Limit = &Override{RequestsPerUnit: rpu, Unit: unit}
		r := Request{Domain: domain, Descriptors: []Descriptor{d}}
		res, err := evaluate(ev, cfg, t0, &r)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := send("nosuch", "x", 10, UnitDay); res.Statuses[0].CurrentLimit != nil {
		t.Errorf("override in an unknown domain: %+v, want no limit", res.Statuses[0])
	}
	if l := send("o", "x", 10, UnitDay).Statuses[0].CurrentLimit; l == nil || l.RequestsPerUnit != 10 || l.Unit != UnitDay {
		t.Errorf("override 10/DAY answered %+v", l)
	}
	if l := send("o", "x", 42, UnitHour).Statuses[0].CurrentLimit; l == nil || l.RequestsPerUnit != 42 || l.Unit != UnitHour {
		t.Errorf("override 42/HOUR answered %+v", l)
	}
	send("o", "x_else", 42, UnitHour)
	if diff := cmp.Diff(map[string]uint64{"o.a_1.b_x": 2, "o.a_1.b_x_else": 1}, counts); diff != "" {
		t.Errorf("override statistics (-want +got):\n%s", diff)
	}
}

// TestRefShadowModeConfig restates TestShadowModeConfig: a shadow_mode
// rule counts shadow_mode when over; its neighbours do not.
func TestRefShadowModeConfig(t *testing.T) {
	cfg := mustLoad(t, `domain: s
descriptors:
  - key: a
    descriptors:
      - key: b
        rate_limit: {unit: second, requests_per_unit: 0}
      - key: b
        value: v
        shadow_mode: true
        rate_limit: {unit: second, requests_per_unit: 0}
`)
	got := map[string]RuleCounts{}
	ev, err := NewEvaluator(Options{Store: counter.NewMemoryStore(counter.MemoryOptions{}), Observe: func(s Stat, c RuleCounts) {
		got[s.Key] = c
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"other", "v"} {
		r := req(desc("a", "x", "b", v))
		r.Domain = "s"
		res, err := evaluate(ev, cfg, t0, &r)
		if err != nil {
			t.Fatal(err)
		}
		want := CodeOverLimit
		if v == "v" {
			want = CodeOK
		}
		if res.OverallCode != want {
			t.Errorf("b=%s: overall %v, want %v", v, res.OverallCode, want)
		}
	}
	want := map[string]RuleCounts{
		"s.a.b":   {TotalHits: 1, OverLimit: 1},
		"s.a.b_v": {TotalHits: 1, OverLimit: 1, ShadowMode: 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("statistics (-want +got):\n%s", diff)
	}
}

// TestRefWildcardConfig restates TestWildcardConfig and the no-flag cases
// of TestWildcardStatsBehavior: wildcards anywhere in a value, matching
// the empty run, counted under the pattern; no eager match of a plain
// value.
func TestRefWildcardConfig(t *testing.T) {
	cfg := mustLoad(t, `domain: w
descriptors:
  - key: wild
    value: foo*
    rate_limit: {unit: minute, requests_per_unit: 20}
  - key: plain
    value: foo
    rate_limit: {unit: minute, requests_per_unit: 20}
  - key: bare
    rate_limit: {unit: minute, requests_per_unit: 20}
  - key: mid
    value: bar*b
    rate_limit: {unit: minute, requests_per_unit: 20}
  - key: multi
    value: foo*bar*baz
    rate_limit: {unit: minute, requests_per_unit: 10}
  - key: tail
    value: foo*bar*
    rate_limit: {unit: minute, requests_per_unit: 10}
  - key: outer
    value: v1
    descriptors:
      - key: wild
        value: goo*
        rate_limit: {unit: minute, requests_per_unit: 20}
`)
	none := found{}
	runLookups(t, cfg, []lookupCase{
		{"w", kv("bare", "foo1"), found{"20/MINUTE", "w.bare"}},
		{"w", kv("bare", "foo2"), found{"20/MINUTE", "w.bare"}},
		{"w", kv("wild", "foo1"), found{"20/MINUTE", "w.wild_foo*"}},
		{"w", kv("wild", "foo2"), found{"20/MINUTE", "w.wild_foo*"}},
		{"w", kv("outer", "v1", "wild", "goo2"), found{"20/MINUTE", "w.outer_v1.wild_goo*"}},
		{"w", kv("wild", "bar"), none},
		{"w", kv("plain", "foo1"), none},
		{"w", kv("mid", "barab"), found{"20/MINUTE", "w.mid_bar*b"}},
		{"w", kv("mid", "bar123b"), found{"20/MINUTE", "w.mid_bar*b"}},
		{"w", kv("mid", "barb"), found{"20/MINUTE", "w.mid_bar*b"}},
		{"w", kv("mid", "bara"), none},
		{"w", kv("mid", "xbarb"), none},
		{"w", kv("multi", "foo123bar456baz"), found{"10/MINUTE", "w.multi_foo*bar*baz"}},
		{"w", kv("multi", "foobarbaz"), found{"10/MINUTE", "w.multi_foo*bar*baz"}},
		{"w", kv("multi", "foo123baz"), none},
		{"w", kv("multi", "bar456baz"), none},
		{"w", kv("tail", "foo123bar456"), found{"10/MINUTE", "w.tail_foo*bar*"}},
		{"w", kv("tail", "fooXbarY"), found{"10/MINUTE", "w.tail_foo*bar*"}},
	})
}

// TestRefDetailedMetric restates TestDetailedMetric: the leaf's
// detailed_metric decides, and the key is every entry with its value.
func TestRefDetailedMetric(t *testing.T) {
	cfg := mustLoad(t, `domain: n
descriptors:
  - key: a
    detailed_metric: true
    rate_limit: {unit: minute, requests_per_unit: 100}
    descriptors:
      - key: b
        detailed_metric: true
        rate_limit: {unit: minute, requests_per_unit: 5}
  - key: c
    rate_limit: {unit: minute, requests_per_unit: 100}
    descriptors:
      - key: d
        rate_limit: {unit: minute, requests_per_unit: 5}
  - key: e
    detailed_metric: true
    rate_limit: {unit: minute, requests_per_unit: 5000}
    descriptors:
      - key: f
        detailed_metric: true
      - key: f
        value: chosen
        detailed_metric: true
        rate_limit: {unit: minute, requests_per_unit: 5}
  - key: e
    value: fixed
    rate_limit: {unit: minute, requests_per_unit: 500}
`)
	runLookups(t, cfg, []lookupCase{
		{"n", kv("a", "v1"), found{"100/MINUTE", "n.a_v1"}},
		{"n", kv("a", "v1", "b", "v2"), found{"5/MINUTE", "n.a_v1.b_v2"}},
		{"n", kv("c", "v1"), found{"100/MINUTE", "n.c"}},
		{"n", kv("c", "v1", "d", "v2"), found{"5/MINUTE", "n.c.d"}},
		{"n", kv("e", "x"), found{"5000/MINUTE", "n.e_x"}},
		{"n", kv("e", "x", "f", "chosen"), found{"5/MINUTE", "n.e_x.f_chosen"}},
		{"n", kv("e", "x", "f", "other"), found{}}, // a whitelist
		{"n", kv("e", "fixed"), found{"500/MINUTE", "n.e_fixed"}},
		// The reference writes "_" before an empty value in this key.
		{"n", kv("a", ""), found{"100/MINUTE", "n.a_"}},
	})
}

// TestRefValueToMetric restates the TestValueToMetric_* tests: the
// request's value on every level that asks, the configured value or
// pattern elsewhere, nothing for an empty value; detailed_metric wins.
func TestRefValueToMetric(t *testing.T) {
	cfg := mustLoad(t, `domain: v
descriptors:
  - key: route
    value_to_metric: true
    descriptors:
      - key: method
        value_to_metric: true
        descriptors:
          - key: subject
            rate_limit: {unit: minute, requests_per_unit: 60}
      - key: verb
        value: GET
        value_to_metric: true
        descriptors:
          - key: subject
            rate_limit: {unit: minute, requests_per_unit: 60}
      - key: verb
        value: POST
        value_to_metric: true
        descriptors:
          - key: subject
            rate_limit: {unit: minute, requests_per_unit: 30}
      - key: action
        value: read*
        value_to_metric: true
        descriptors:
          - key: resource
            rate_limit: {unit: minute, requests_per_unit: 100}
      - key: detailed
        value_to_metric: true
        descriptors:
          - key: subject
            detailed_metric: true
            rate_limit: {unit: minute, requests_per_unit: 60}
  - key: k1
    descriptors:
      - key: k2
        value_to_metric: true
        descriptors:
          - key: k3
            rate_limit: {unit: second, requests_per_unit: 1}
  - key: p1
    descriptors:
      - key: p2
        rate_limit: {unit: second, requests_per_unit: 1}
  - key: wild
    value: foo*
    value_to_metric: true
    rate_limit: {unit: minute, requests_per_unit: 20}
  - key: twowild
    value: foo*bar*
    value_to_metric: true
    rate_limit: {unit: minute, requests_per_unit: 20}
  - key: outer
    value: foo*
    descriptors:
      - key: other
        value_to_metric: true
        descriptors:
          - key: leaf
            rate_limit: {unit: minute, requests_per_unit: 20}
`)
	runLookups(t, cfg, []lookupCase{
		{"v", kv("route", "draw", "method", "GET", "subject", "123"), found{"60/MINUTE", "v.route_draw.method_GET.subject"}},
		{"v", kv("k1", "X", "k2", "Y", "k3", "Z"), found{"1/SECOND", "v.k1.k2_Y.k3"}},
		{"v", kv("p1", "X", "p2", "Y"), found{"1/SECOND", "v.p1.p2"}},
		{"v", kv("route", "draw", "detailed", "GET", "subject", "123"), found{"60/MINUTE", "v.route_draw.detailed_GET.subject_123"}},
		{"v", kv("route", "api", "verb", "GET", "subject", "u1"), found{"60/MINUTE", "v.route_api.verb_GET.subject"}},
		{"v", kv("route", "api", "verb", "POST", "subject", "u2"), found{"30/MINUTE", "v.route_api.verb_POST.subject"}},
		{"v", kv("route", "alice", "action", "readfile", "resource", "docs"), found{"100/MINUTE", "v.route_alice.action_readfile.resource"}},
		{"v", kv("route", "", "method", "GET", "subject", "123"), found{"60/MINUTE", "v.route.method_GET.subject"}},
		{"v", kv("route", "draw", "method", "", "subject", "123"), found{"60/MINUTE", "v.route_draw.method.subject"}},
		{"v", kv("route", "", "method", "", "subject", "123"), found{"60/MINUTE", "v.route.method.subject"}},
		{"v", kv("wild", "foo1"), found{"20/MINUTE", "v.wild_foo1"}},
		{"v", kv("twowild", "foo123bar456"), found{"20/MINUTE", "v.twowild_foo123bar456"}},
		{"v", kv("outer", "foo1", "other", "bar", "leaf", "X"), found{"20/MINUTE", "v.outer_foo*.other_bar.leaf"}},
	})
}

// TestRefShareThresholdStats restates TestShareThreshold and the
// share_threshold cases of TestWildcardStatsBehavior: a share_threshold
// level counts under its pattern, even with value_to_metric or under a
// detailed_metric leaf; an explicit value still wins over the pattern.
func TestRefShareThresholdStats(t *testing.T) {
	cfg := mustLoad(t, `domain: st
descriptors:
  - key: files
    value: files/*
    share_threshold: true
    rate_limit: {unit: minute, requests_per_unit: 100}
  - key: nested
    value: parent
    descriptors:
      - key: files
        value: nested/*
        share_threshold: true
        rate_limit: {unit: minute, requests_per_unit: 200}
  - key: files
    value: top/*
    share_threshold: true
    descriptors:
      - key: files
        value: nested/*
        share_threshold: true
        rate_limit: {unit: minute, requests_per_unit: 300}
  - key: route
    value: api/*
    share_threshold: true
    value_to_metric: true
    descriptors:
      - key: method
        rate_limit: {unit: minute, requests_per_unit: 60}
  - key: service
    value: svc/*
    share_threshold: true
    descriptors:
      - key: endpoint
        detailed_metric: true
        rate_limit: {unit: minute, requests_per_unit: 80}
  - key: path
    value: path/*
    share_threshold: true
    descriptors:
      - key: file
        value: file/*
        descriptors:
          - key: type
            rate_limit: {unit: minute, requests_per_unit: 120}
  - key: user
    value: user/*
    share_threshold: true
    descriptors:
      - key: resource
        value: res/*
        share_threshold: true
        descriptors:
          - key: action
            rate_limit: {unit: minute, requests_per_unit: 150}
  - key: file
    value: test1
    rate_limit: {unit: minute, requests_per_unit: 50}
  - key: file
    value: test*
    share_threshold: true
    rate_limit: {unit: minute, requests_per_unit: 100}
  - key: midpath
    value: /api*v1
    share_threshold: true
    rate_limit: {unit: minute, requests_per_unit: 100}
  - key: multiroute
    value: svc*ep*rpc
    share_threshold: true
    rate_limit: {unit: minute, requests_per_unit: 50}
  - key: midroute
    value: /api*v2
    share_threshold: true
    value_to_metric: true
    rate_limit: {unit: minute, requests_per_unit: 80}
  - key: tenant
    value: t*prod
    share_threshold: true
    descriptors:
      - key: resource
        value: res*v2
        share_threshold: true
        rate_limit: {unit: minute, requests_per_unit: 60}
  - key: wild
    value: foo*
    share_threshold: true
    value_to_metric: true
    rate_limit: {unit: minute, requests_per_unit: 20}
`)
	cases := []lookupCase{
		{"st", kv("nested", "parent", "files", "nested/file1.txt"), found{"200/MINUTE", "st.nested_parent.files_nested/*"}},
		{"st", kv("files", "top/file1.txt", "files", "nested/file1.txt"), found{"300/MINUTE", "st.files_top/*.files_nested/*"}},
		{"st", kv("route", "api/v1", "method", "GET"), found{"60/MINUTE", "st.route_api/*.method"}},
		{"st", kv("service", "svc/user", "endpoint", "get"), found{"80/MINUTE", "st.service_svc/*.endpoint_get"}},
		{"st", kv("path", "path/foo", "file", "file/doc1", "type", "pdf"), found{"120/MINUTE", "st.path_path/*.file_file/*.type"}},
		{"st", kv("user", "user/alice", "resource", "res/file1", "action", "read"), found{"150/MINUTE", "st.user_user/*.resource_res/*.action"}},
		{"st", kv("file", "test1"), found{"50/MINUTE", "st.file_test1"}},
		{"st", kv("midpath", "/api/v2"), found{}},
		{"st", kv("multiroute", "svcABCrpc"), found{}},
		{"st", kv("midroute", "/api/v2"), found{"80/MINUTE", "st.midroute_/api*v2"}},
		{"st", kv("midroute", "/api-beta-v2"), found{"80/MINUTE", "st.midroute_/api*v2"}},
		{"st", kv("tenant", "t1prod", "resource", "resAv2"), found{"60/MINUTE", "st.tenant_t*prod.resource_res*v2"}},
		{"st", kv("tenant", "t99prod", "resource", "resBBBv2"), found{"60/MINUTE", "st.tenant_t*prod.resource_res*v2"}},
		{"st", kv("wild", "foo1"), found{"20/MINUTE", "st.wild_foo*"}},
	}
	for _, v := range []string{"files/a.pdf", "files/b.csv", "files/c.txt"} {
		cases = append(cases, lookupCase{"st", kv("files", v), found{"100/MINUTE", "st.files_files/*"}})
	}
	for _, v := range []string{"test2", "test23", "test123"} {
		cases = append(cases, lookupCase{"st", kv("file", v), found{"100/MINUTE", "st.file_test*"}})
	}
	for _, v := range []string{"/api/v1", "/api-beta-v1", "/apiXYZv1"} {
		cases = append(cases, lookupCase{"st", kv("midpath", v), found{"100/MINUTE", "st.midpath_/api*v1"}})
	}
	for _, v := range []string{"svcAepBrpc", "svcXXXepYYYrpc", "svceprpc"} {
		cases = append(cases, lookupCase{"st", kv("multiroute", v), found{"50/MINUTE", "st.multiroute_svc*ep*rpc"}})
	}
	runLookups(t, cfg, cases)
}

// TestRefMetadata restates TestMetadata: a descriptor's metadata is
// loaded with its nested maps (what the answer does with it is
// RESPONSE_DYNAMIC_METADATA's).
func TestRefMetadata(t *testing.T) {
	cfg := mustLoad(t, `domain: md
descriptors:
  - key: a
    value: v
    descriptors:
      - key: b
        rate_limit: {unit: second, requests_per_unit: 5}
        metadata:
          name: service_1
  - key: c
    rate_limit: {unit: minute, requests_per_unit: 20}
    metadata:
      service_with_quota:
        name: service_2
`)
	d := cfg.Domain("md").Descriptors()
	if got := d[0].Children()[0].Metadata["name"]; got != "service_1" {
		t.Errorf("a_v.b metadata name = %v, want service_1", got)
	}
	inner, _ := d[1].Metadata["service_with_quota"].(map[string]any)
	if inner["name"] != "service_2" {
		t.Errorf("c metadata = %v, want service_with_quota.name service_2", d[1].Metadata)
	}
	runLookups(t, cfg, []lookupCase{
		{"md", kv("a", "v", "b", "x"), found{"5/SECOND", "md.a_v.b"}},
		{"md", kv("c", "x"), found{"20/MINUTE", "md.c"}},
	})
}

// TestRefConfigErrors restates the reference's bad-file tests: each
// message ends with the reference's text, after rlpkit's file:line and
// field path.
func TestRefConfigErrors(t *testing.T) {
	const other = "domain: test-domain\ndescriptors:\n  - key: key1\n    value: value1\n    rate_limit: {unit: day, requests_per_unit: 5}\n"
	tests := []struct {
		name  string
		files []File
		merge bool
		want  string
	}{
		{"TestEmptyDomain", []File{{Key: "empty_domain.yaml", Data: []byte("domain:\ndescriptors:\n  - key: k\n")}},
			false, "empty_domain.yaml:1: domain: config file cannot have empty domain"},
		{"TestDuplicateDomain", []File{{Key: "a.yaml", Data: []byte(other)}, {Key: "duplicate_domain.yaml", Data: []byte(other)}},
			false, "duplicate_domain.yaml:1: domain: duplicate domain 'test-domain' in config file"},
		{"TestEmptyKey", []File{{Key: "empty_key.yaml", Data: []byte("domain: test-domain\ndescriptors:\n  - value: value1\n")}},
			false, "empty_key.yaml:3: descriptors[0].key: descriptor has empty key"},
		{"TestDuplicateKey", []File{{Key: "duplicate_key.yaml", Data: []byte(other + "  - key: key1\n    value: value1\n")}},
			false, "duplicate_key.yaml:6: descriptors: duplicate descriptor composite key 'test-domain.key1_value1'"},
		{"TestDuplicateKeyDomainMerge", []File{{Key: "a.yaml", Data: []byte(other)}, {Key: "merge_domain_key1.yaml", Data: []byte(other)}},
			true, "merge_domain_key1.yaml:3: descriptors: duplicate descriptor composite key 'test-domain.key1_value1'"},
		{"TestBadLimitUnit", []File{{Key: "bad_limit_unit.yaml", Data: []byte("domain: d\ndescriptors:\n  - key: k\n    rate_limit: {unit: foo, requests_per_unit: 5}\n")}},
			false, "bad_limit_unit.yaml:4: descriptors[0].rate_limit.unit: invalid rate limit unit 'foo'"},
		{"TestReplacesSelf", []File{{Key: "replaces_self.yaml", Data: []byte("domain: d\ndescriptors:\n  - key: k\n    rate_limit:\n      name: me\n      unit: day\n      requests_per_unit: 5\n      replaces: [{name: me}]\n")}},
			false, "replaces_self.yaml:5: descriptors[0].rate_limit.replaces: replaces should not contain name of same descriptor"},
		{"TestReplacesEmpty", []File{{Key: "replaces_empty.yaml", Data: []byte("domain: d\ndescriptors:\n  - key: k\n    rate_limit:\n      unit: day\n      requests_per_unit: 5\n      replaces: [{name: ''}]\n")}},
			false, "replaces_empty.yaml:7: descriptors[0].rate_limit.replaces[0]: should not have an empty replaces entry"},
		{"TestBadYaml", []File{{Key: "bad_yaml.yaml", Data: []byte("'''\n")}},
			false, "bad_yaml.yaml: error loading config file: yaml: line 2: found unexpected end of stream"},
		{"TestMisspelledKey", []File{{Key: "misspelled_key.yaml", Data: []byte("domain: d\ndescriptors:\n  - key: k\n    ratelimit: {unit: day}\n")}},
			false, "misspelled_key.yaml:4: descriptors[0].ratelimit: config error, unknown key 'ratelimit'"},
		{"TestMisspelledKey2", []File{{Key: "misspelled_key2.yaml", Data: []byte("domain: d\ndescriptors:\n  - key: k\n    rate_limit:\n      unit: day\n      requestsperunit: 5\n")}},
			false, "misspelled_key2.yaml:6: descriptors[0].rate_limit.requestsperunit: config error, unknown key 'requestsperunit'"},
		{"TestNonStringKey", []File{{Key: "non_string_key.yaml", Data: []byte("0.25: test-domain\ndescriptors: []\n")}},
			false, "non_string_key.yaml:1: config error, key is not of type string: 0.25"},
		{"TestNonMapList", []File{{Key: "non_map_list.yaml", Data: []byte("domain: d\ndescriptors:\n  - a\n  - b\n")}},
			false, "non_map_list.yaml:3: descriptors[0]: config error, yaml file contains list of type other than map: a"},
		{"TestUnlimitedWithRateLimitUnit", []File{{Key: "unlimited_with_unit.yaml", Data: []byte("domain: d\ndescriptors:\n  - key: k\n    rate_limit: {unlimited: true, unit: day}\n")}},
			false, "unlimited_with_unit.yaml:4: descriptors[0].rate_limit.unit: should not specify rate limit unit when unlimited"},
		{"share_threshold without a wildcard", []File{{Key: "st.yaml", Data: []byte("domain: d\ndescriptors:\n  - key: k\n    value: plain\n    share_threshold: true\n    rate_limit: {unit: day, requests_per_unit: 5}\n")}},
			false, "st.yaml:3: descriptors[0].share_threshold: share_threshold can only be used with wildcard values (containing '*'), but found key 'k_plain'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := loadErrors(t, tc.files, LoadOptions{MergeDomains: tc.merge})
			if len(got) == 0 || got[0] != tc.want {
				t.Errorf("Load() errors = %q, want first %q", got, tc.want)
			}
		})
	}
}
