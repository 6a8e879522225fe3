package envoyxds

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rlpkit/rlpkit/descriptor"
)

// randomConfig builds a valid PluginConfig from small pools of hostnames, paths, methods and
// headers, so that policies share hostnames, rules overlap and route matches intersect rules.
func randomConfig(rng *rand.Rand) *descriptor.PluginConfig {
	pick := func(pool []string) string { return pool[rng.IntN(len(pool))] }
	some := func(pool []string, most int) []string {
		var out []string
		for range rng.IntN(most + 1) {
			out = append(out, pick(pool))
		}
		return out
	}
	hostnames := []string{"*", "*.example.com", "api.example.com", "example.com", "*.api.example.com", "other.org"}
	ruleHosts := []string{"*.example.com", "api.example.com", "Example.COM", "*", "x.api.example.com", "other.org"}
	rulePaths := []string{"/api/*", "/api/v1", "/admin*", "/*", "/login", "/api", "/api/v1/*"}
	matchPaths := []string{"/", "/api", "/api/", "/api/v1", "/admin", "/login"}
	methods := []string{"GET", "POST", "PUT"}
	boolp := func(b bool) *bool { return &b }
	strp := func(s string) *string { return &s }

	cfg := &descriptor.PluginConfig{}
	if rng.IntN(2) == 0 {
		cfg.FailureModeDeny = boolp(true)
	}
	for p := range 1 + rng.IntN(4) {
		pol := descriptor.Policy{
			Name:            fmt.Sprintf("p%d", p),
			RateLimitDomain: fmt.Sprintf("d%d", p),
			UpstreamCluster: pick([]string{"rl", "rl", "rl2"}),
		}
		for _, h := range some(hostnames, 2) {
			if !containsFold(pol.Hostnames, h) {
				pol.Hostnames = append(pol.Hostnames, h)
			}
		}
		if len(pol.Hostnames) == 0 {
			pol.Hostnames = []string{pick(hostnames)}
		}
		for range rng.IntN(3) {
			var m descriptor.RouteMatch
			if rng.IntN(3) > 0 {
				m.Path = &descriptor.PathMatch{Type: descriptor.PathMatchType(pick([]string{"Exact", "PathPrefix"})), Value: pick(matchPaths)}
			}
			if rng.IntN(3) == 0 {
				m.Method = pick(methods)
			}
			if rng.IntN(4) == 0 {
				m.Headers = append(m.Headers, descriptor.RouteHeaderMatch{Name: "x-canary", Value: "true"})
			}
			if rng.IntN(5) == 0 {
				m.Headers = append(m.Headers, descriptor.RouteHeaderMatch{Name: "x-build", Type: "RegularExpression", Value: "[0-9]+"})
			}
			pol.RouteMatches = append(pol.RouteMatches, m)
		}
		for g := range rng.IntN(5) {
			var ga descriptor.GatewayAction
			for range rng.IntN(4) {
				ga.Rules = append(ga.Rules, descriptor.Rule{Paths: some(rulePaths, 2), Methods: some(methods, 2), Hosts: some(ruleHosts, 1)})
			}
			for c := range rng.IntN(3) {
				conf := descriptor.Configuration{Actions: []descriptor.Action{{GenericKey: &descriptor.GenericKey{
					DescriptorKey: fmt.Sprintf("ga%d", g), DescriptorValue: fmt.Sprintf("c%d", c)}}}}
				switch rng.IntN(6) {
				case 0:
					conf.Actions = append(conf.Actions, descriptor.Action{RequestHeaders: &descriptor.RequestHeaders{
						HeaderName: "X-User", DescriptorKey: "user", SkipIfAbsent: rng.IntN(2) == 0}})
				case 1:
					conf.Actions = append(conf.Actions, descriptor.Action{HeaderValueMatch: &descriptor.HeaderValueMatch{
						DescriptorValue: "canary", ExpectMatch: boolp(rng.IntN(2) == 0),
						Headers: []descriptor.HeaderMatcher{{Name: "x-canary", ExactMatch: strp("true")}}}})
				case 2:
					conf.Actions = append(conf.Actions, descriptor.Action{RemoteAddress: &descriptor.RemoteAddress{}})
				case 3:
					conf.Actions = append(conf.Actions, descriptor.Action{Metadata: &descriptor.MetadataAction{
						DescriptorKey: "tenant", DefaultValue: pick([]string{"", "anon"}),
						MetadataKey: descriptor.MetadataKey{Key: "t", Path: []descriptor.PathSegment{{Key: "id"}}}}})
				}
				if rng.IntN(4) == 0 {
					conf.Limit = &descriptor.LimitOverride{DynamicMetadata: &descriptor.DynamicMetadataSource{
						MetadataKey: descriptor.MetadataKey{Key: "t", Path: []descriptor.PathSegment{{Key: "limit"}}}}}
				}
				switch rng.IntN(5) {
				case 0:
					n := uint64(rng.IntN(3))
					conf.HitsAddend = &descriptor.HitsAddend{Number: &n}
				case 1:
					conf.HitsAddend = &descriptor.HitsAddend{DynamicMetadata: &descriptor.DynamicMetadataSource{
						MetadataKey: descriptor.MetadataKey{Key: "t", Path: []descriptor.PathSegment{{Key: "cost"}}}}}
				}
				ga.Configurations = append(ga.Configurations, conf)
			}
			pol.GatewayActions = append(pol.GatewayActions, ga)
		}
		cfg.RateLimitPolicies = append(cfg.RateLimitPolicies, pol)
	}
	return cfg
}

func containsFold(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// TestRandomConfigsEquivalent translates random configurations (see randomConfig) and checks
// that Envoy sends what descriptor generates for requests drawn from each one's vocabulary.
func TestRandomConfigsEquivalent(t *testing.T) {
	const configs, perConfig = 300, 100
	rng := rand.New(rand.NewPCG(8, 8))
	for i := range configs {
		cfg := randomConfig(rng)
		if err := descriptor.Validate(cfg); err != nil {
			js, _ := json.Marshal(cfg)
			t.Fatalf("random configuration %d is invalid: %v\n%s", i, err, js)
		}
		c := newChecker(t, cfg)
		out, err := Translate(cfg, Options{})
		if err != nil {
			js, _ := json.Marshal(cfg)
			t.Fatalf("Translate(random configuration %d) = %v\n%s", i, err, js)
		}
		validateOutput(t, out)
		v := newVocabulary(cfg)
		for range perConfig {
			req := v.probe(rng)
			c.check(t, &req)
			if t.Failed() {
				js, _ := json.Marshal(cfg)
				t.Fatalf("random configuration %d:\n%s", i, js)
			}
		}
	}
}
