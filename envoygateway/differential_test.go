package envoygateway

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	"github.com/google/go-cmp/cmp"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/envoyratelimit"
	"github.com/rlpkit/rlpkit/policy/egv1alpha1"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// The topology of the differential test: one Gateway, one route with two matches.
const diffTopology = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: lab, namespace: test}
spec:
  gatewayClassName: eg
  listeners: [{name: web, protocol: HTTP, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: bench, namespace: test}
spec:
  parentRefs: [{name: lab}]
  rules:
  - matches: [{path: {type: PathPrefix, value: /api}}, {path: {type: PathPrefix, value: /}}]
`

func pick[T any](rng *rand.Rand, xs ...T) T { return xs[rng.IntN(len(xs))] }

func ptrTo[T any](v T) *T { return &v }

// randomSelector returns a client selector over the vocabulary the requests draw from.
func randomSelector(rng *rand.Rand) egv1alpha1.RateLimitSelectCondition {
	var s egv1alpha1.RateLimitSelectCondition
	for s.Headers == nil && s.Methods == nil && s.Path == nil && s.SourceCIDR == nil && s.QueryParams == nil {
		if rng.IntN(2) == 0 {
			s.Headers = append(s.Headers, pick(rng,
				egv1alpha1.HeaderMatch{Name: "x-user", Type: ptrTo(egv1alpha1.HeaderMatchDistinct)},
				egv1alpha1.HeaderMatch{Name: "x-tier", Value: ptrTo("gold")},
				egv1alpha1.HeaderMatch{Name: "X-Tier", Value: ptrTo("gold"), Invert: ptrTo(true)},
				egv1alpha1.HeaderMatch{Name: "x-tier", Type: ptrTo(egv1alpha1.HeaderMatchRegularExpression), Value: ptrTo("g.*|s.*")},
			))
		}
		if rng.IntN(3) == 0 {
			s.Methods = []egv1alpha1.MethodMatch{{Value: "GET"}, {Value: "POST", Invert: ptrTo(rng.IntN(2) == 0)}}[:1+rng.IntN(2)]
		}
		if rng.IntN(3) == 0 {
			s.Path = pick(rng,
				&egv1alpha1.PathMatch{Value: "/api/"},
				&egv1alpha1.PathMatch{Value: "/"},
				&egv1alpha1.PathMatch{Type: ptrTo(gatewayv1.PathMatchPathPrefix), Value: "/api", Invert: ptrTo(true)},
				&egv1alpha1.PathMatch{Type: ptrTo(gatewayv1.PathMatchExact), Value: "/api/x"},
				&egv1alpha1.PathMatch{Type: ptrTo(gatewayv1.PathMatchRegularExpression), Value: "/v[0-9]+/.*"},
			)
		}
		if rng.IntN(3) == 0 {
			s.SourceCIDR = pick(rng,
				&egv1alpha1.SourceMatch{Value: "10.1.2.3/16"},
				&egv1alpha1.SourceMatch{Value: "10.0.0.0/8", Type: ptrTo(egv1alpha1.SourceMatchDistinct)},
				&egv1alpha1.SourceMatch{Value: "2001:DB8::/32", Invert: ptrTo(true)},
				&egv1alpha1.SourceMatch{Value: "10.1.0.0/16", Type: ptrTo(egv1alpha1.SourceMatchDistinct), Invert: ptrTo(true)},
			)
		}
		if rng.IntN(3) == 0 {
			s.QueryParams = append(s.QueryParams, pick(rng,
				egv1alpha1.QueryParamMatch{Name: "id", Type: ptrTo(egv1alpha1.HeaderMatchDistinct)},
				egv1alpha1.QueryParamMatch{Name: "q", Value: ptrTo("a b")},
				egv1alpha1.QueryParamMatch{Name: "q", Type: ptrTo(egv1alpha1.HeaderMatchRegularExpression), Value: ptrTo("[a-z]+"), Invert: ptrTo(true)},
			))
		}
	}
	return s
}

// randomPolicy returns a Gateway policy of 1 to 4 random global rules.
func randomPolicy(rng *rand.Rand) *egv1alpha1.BackendTrafficPolicy {
	p := &egv1alpha1.BackendTrafficPolicy{}
	p.APIVersion, p.Kind, p.Namespace, p.Name = egv1alpha1.GroupVersion.String(), egv1alpha1.Kind, "test", "rand"
	p.Spec.TargetRefs = append(p.Spec.TargetRefs, gatewayRef("lab"))
	g := &egv1alpha1.GlobalRateLimit{}
	for range 1 + rng.IntN(4) {
		r := egv1alpha1.RateLimitRule{Limit: egv1alpha1.RateLimitValue{Requests: uint32(1 + rng.IntN(5)), Unit: pick(rng, egv1alpha1.Units...)}}
		for range rng.IntN(3) {
			r.ClientSelectors = append(r.ClientSelectors, randomSelector(rng))
		}
		if rng.IntN(3) == 0 {
			r.Shared = ptrTo(true)
		}
		if rng.IntN(4) == 0 {
			r.Limit.FromMetadata = &egv1alpha1.RateLimitValueMetadata{Namespace: "tenant", Key: "limit"}
		}
		if rng.IntN(3) == 0 {
			r.Cost = &egv1alpha1.RateLimitCost{Request: pick(rng,
				&egv1alpha1.RateLimitCostSpecifier{From: "Number", Number: ptrTo(uint64(rng.IntN(3)))},
				&egv1alpha1.RateLimitCostSpecifier{From: "Metadata", Metadata: &egv1alpha1.RateLimitCostMetadata{Namespace: "cost", Key: "req"}},
			)}
			if rng.IntN(2) == 0 {
				r.Cost.Response = &egv1alpha1.RateLimitCostSpecifier{From: "Metadata", Metadata: &egv1alpha1.RateLimitCostMetadata{Namespace: "cost", Key: "resp"}}
			}
		}
		g.Rules = append(g.Rules, r)
	}
	p.Spec.RateLimit = &egv1alpha1.RateLimitSpec{Global: g}
	return p
}

// randomRequest returns a request over the selectors' vocabulary. Costs in metadata are
// always integers: package descriptor charges 1 for a missing one, where Envoy drops the
// descriptor (envoyxds reports it as a caveat).
func randomRequest(rng *rand.Rand) *descriptor.Request {
	h := descriptor.HeaderMap{}
	if rng.IntN(3) > 0 {
		h["x-user"] = []string{pick(rng, "alice", "bob")}
	}
	for range rng.IntN(3) {
		h["x-tier"] = append(h["x-tier"], pick(rng, "gold", "silver", "bronze"))
	}
	path := pick(rng, "/api", "/api/x", "/apix", "/v2/items", "/", "/api/x/y")
	if q := pick(rng, "", "?id=7", "?q=a+b", "?q=abc&id=", "?id=x%20y&q=a%20b", "?q"); q != "" {
		path += q
	}
	md := descriptor.Metadata{"cost": map[string]any{"req": float64(rng.IntN(4)), "resp": float64(rng.IntN(4))}}
	switch rng.IntN(4) {
	case 0:
		md["tenant"] = map[string]any{"limit": map[string]any{"requests_per_unit": float64(rng.IntN(9)), "unit": pick(rng, "SECOND", "HOUR", "WEEK")}}
	case 1:
		md["tenant"] = map[string]any{"limit": "malformed"}
	}
	return &descriptor.Request{
		Method: pick(rng, "GET", "POST", "PUT"), Host: pick(rng, "lab.test", "lab.test:80"), Path: path, Headers: h,
		RemoteAddress:   pick(rng, "10.1.9.9", "10.2.0.1:4000", "192.0.2.7", "[2001:db8::5]:443", "2001:db9::1", ""),
		DynamicMetadata: md, HitsAddend: uint32(rng.IntN(2)),
	}
}

// TestDifferential compiles random policies and checks, for random requests, that the
// descriptors Evaluate computes from the rules are those package descriptor's interpreter
// of Envoy's actions produces from the compiled route actions, call by call; and that the
// compiled configuration of the rate-limit service (as envoyproxy/ratelimit files, loaded
// by package limit/envoyratelimit) decides each with the limit of the rule that made it.
func TestDifferential(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 9))
	var seen struct{ calls, done, overrides, shared, dropped int }
	defer func() {
		if seen.calls == 0 || seen.done == 0 || seen.overrides == 0 || seen.shared == 0 || seen.dropped == 0 {
			t.Errorf("the random requests miss a case: %+v", seen)
		}
	}()
	for pi := range 150 {
		p := randomPolicy(rng)
		js, _ := json.Marshal(p)
		res := compileFile(t, []byte(diffTopology+"---\n"+string(js)))
		if len(res.Statuses) != 1 || res.Output().Statuses[0].Accepted != "True" {
			t.Fatalf("policy %d %s: statuses %+v", pi, js, res.Statuses)
		}
		ev := diffEvaluator(t, res)
		gw := res.Gateway("test/lab")
		for ri := range 40 {
			req := randomRequest(rng)
			got := gw.Evaluate(req, 0)
			if got.Route == nil {
				t.Fatalf("policy %d request %d: no route:\n%s", pi, ri, strings.Join(got.Trace, "\n"))
			}
			want := interpret(t, got.Route, req)
			if diff := cmp.Diff(want, callsOf(got)); diff != "" {
				t.Fatalf("policy %d %s\nrequest %+v\nEvaluate vs descriptor's interpretation of the actions (-actions +evaluate):\n%s\ntrace:\n%s",
					pi, js, req, diff, strings.Join(got.Trace, "\n"))
			}
			checkDecisions(t, ev, got, res)
			seen.calls += len(got.Calls)
			seen.done += len(got.Done)
			for _, c := range got.Calls {
				seen.shared += len(strings.Split(c.Filter, "/")) - 1
				for _, d := range c.Request.Descriptors {
					if d.Limit != nil {
						seen.overrides++
					}
				}
			}
			for _, line := range got.Trace {
				if strings.HasSuffix(line, ": no descriptor") {
					seen.dropped++
				}
			}
		}
	}
}

// phaseCall is a call as the test compares it.
type phaseCall struct {
	Done        bool
	Domain      string
	Descriptors []rlsmsg.Descriptor
}

func callsOf(ev *Evaluation) []phaseCall {
	var out []phaseCall
	for i, cs := range [][]Call{ev.Calls, ev.Done} {
		for _, c := range cs {
			out = append(out, phaseCall{Done: i == 1, Domain: c.Request.Domain, Descriptors: c.Request.Descriptors})
		}
	}
	return out
}

// interpret runs the route's compiled actions, domain by domain in filter order, through
// package descriptor's engine, request-time ones and stream-done ones apart.
func interpret(t *testing.T, rt *Route, req *descriptor.Request) []phaseCall {
	t.Helper()
	var domains []string
	for d := range rt.Actions {
		domains = append(domains, d)
	}
	listener := rt.Listener().Name
	orderDomains(domains, listener)
	var out []phaseCall
	for _, done := range []bool{false, true} {
		for _, d := range domains {
			var cfgs []descriptor.Configuration
			for _, rl := range rt.Actions[d] {
				if rl.ApplyOnStreamDone == done {
					cfgs = append(cfgs, toConfiguration(t, rl))
				}
			}
			if len(cfgs) == 0 {
				continue
			}
			cfg := &descriptor.PluginConfig{RateLimitPolicies: []descriptor.Policy{{Name: rt.Name, RateLimitDomain: d, UpstreamCluster: "rls",
				Hostnames: []string{"*"}, GatewayActions: []descriptor.GatewayAction{{Configurations: cfgs}}}}}
			e, err := descriptor.Compile(cfg)
			if err != nil {
				t.Fatalf("descriptor.Compile: %v", err)
			}
			res := e.Generate(req)
			if len(res.Descriptors) > 0 {
				out = append(out, phaseCall{Done: done, Domain: d, Descriptors: res.Request.Clone().Descriptors})
			}
		}
	}
	return out
}

// orderDomains sorts domains in filter order: the listener's, then the others by name.
func orderDomains(ds []string, listener string) {
	for i := range ds {
		for j := i + 1; j < len(ds); j++ {
			if ds[j] == listener || ds[i] != listener && ds[j] < ds[i] {
				ds[i], ds[j] = ds[j], ds[i]
			}
		}
	}
}

var dynamicMetadataFormat = regexp.MustCompile(`^%DYNAMIC_METADATA\(([^:)]+):([^:)]+)\)%$`)

// toConfiguration translates an Envoy RateLimit into package descriptor's configuration.
func toConfiguration(t *testing.T, rl *routev3.RateLimit) descriptor.Configuration {
	t.Helper()
	var c descriptor.Configuration
	for _, a := range rl.Actions {
		c.Actions = append(c.Actions, toAction(t, a))
	}
	if o := rl.GetLimit().GetDynamicMetadata(); o != nil {
		c.Limit = &descriptor.LimitOverride{DynamicMetadata: &descriptor.DynamicMetadataSource{MetadataKey: descriptor.MetadataKey{
			Key: o.MetadataKey.Key, Path: []descriptor.PathSegment{{Key: o.MetadataKey.Path[0].GetKey()}}}}}
	}
	if h := rl.HitsAddend; h != nil {
		switch {
		case h.Number != nil:
			c.HitsAddend = &descriptor.HitsAddend{Number: &h.Number.Value}
		case h.Format != "":
			m := dynamicMetadataFormat.FindStringSubmatch(h.Format)
			if m == nil {
				t.Fatalf("hits_addend format %q", h.Format)
			}
			c.HitsAddend = &descriptor.HitsAddend{DynamicMetadata: &descriptor.DynamicMetadataSource{MetadataKey: descriptor.MetadataKey{Key: m[1], Path: []descriptor.PathSegment{{Key: m[2]}}}}}
		}
	}
	return c
}

func toAction(t *testing.T, a *routev3.RateLimit_Action) descriptor.Action {
	t.Helper()
	switch x := a.ActionSpecifier.(type) {
	case *routev3.RateLimit_Action_GenericKey_:
		return descriptor.Action{GenericKey: &descriptor.GenericKey{DescriptorKey: x.GenericKey.DescriptorKey, DescriptorValue: x.GenericKey.DescriptorValue}}
	case *routev3.RateLimit_Action_RequestHeaders_:
		return descriptor.Action{RequestHeaders: &descriptor.RequestHeaders{HeaderName: x.RequestHeaders.HeaderName, DescriptorKey: x.RequestHeaders.DescriptorKey}}
	case *routev3.RateLimit_Action_HeaderValueMatch_:
		h := x.HeaderValueMatch
		expect := h.ExpectMatch.GetValue()
		out := &descriptor.HeaderValueMatch{DescriptorKey: h.DescriptorKey, DescriptorValue: h.DescriptorValue, ExpectMatch: &expect}
		for _, m := range h.Headers {
			hm := descriptor.HeaderMatcher{Name: m.Name}
			sm := m.GetStringMatch()
			switch {
			case sm.GetExact() != "":
				hm.ExactMatch = ptrTo(sm.GetExact())
			case sm.GetPrefix() != "":
				hm.PrefixMatch = ptrTo(sm.GetPrefix())
			case sm.GetSafeRegex() != nil:
				hm.SafeRegexMatch = &descriptor.RegexMatcher{Regex: sm.GetSafeRegex().Regex}
			default:
				t.Fatalf("header matcher %v", m)
			}
			out.Headers = append(out.Headers, hm)
		}
		return descriptor.Action{HeaderValueMatch: out}
	case *routev3.RateLimit_Action_RemoteAddressMatch_:
		r := x.RemoteAddressMatch
		out := &descriptor.RemoteAddressMatch{DescriptorKey: r.DescriptorKey, DescriptorValue: r.DescriptorValue, AddressMatcher: descriptor.AddressMatcher{InvertMatch: r.AddressMatcher.InvertMatch}}
		for _, cr := range r.AddressMatcher.Ranges {
			out.AddressMatcher.Ranges = append(out.AddressMatcher.Ranges, descriptor.CidrRange{AddressPrefix: cr.AddressPrefix, PrefixLen: cr.PrefixLen.GetValue()})
		}
		return descriptor.Action{RemoteAddressMatch: out}
	case *routev3.RateLimit_Action_QueryParameterValueMatch_:
		q := x.QueryParameterValueMatch
		expect := q.ExpectMatch.GetValue()
		out := &descriptor.QueryParameterValueMatch{DescriptorKey: q.DescriptorKey, DescriptorValue: q.DescriptorValue, ExpectMatch: &expect}
		for _, m := range q.QueryParameters {
			qm := descriptor.QueryParameterMatcher{Name: m.Name}
			if sm := m.GetStringMatch(); sm.GetSafeRegex() != nil {
				qm.SafeRegexMatch = &descriptor.RegexMatcher{Regex: sm.GetSafeRegex().Regex}
			} else {
				qm.ExactMatch = ptrTo(sm.GetExact())
			}
			out.QueryParameters = append(out.QueryParameters, qm)
		}
		return descriptor.Action{QueryParameterValueMatch: out}
	case *routev3.RateLimit_Action_QueryParameters_:
		return descriptor.Action{QueryParameters: &descriptor.QueryParameters{QueryParameterName: x.QueryParameters.QueryParameterName, DescriptorKey: x.QueryParameters.DescriptorKey}}
	}
	t.Fatalf("action %v", a)
	return descriptor.Action{}
}

// diffEvaluator loads the compiled configuration as envoyproxy/ratelimit files.
func diffEvaluator(t *testing.T, res *Result) *envoyratelimit.Evaluator {
	t.Helper()
	var files []envoyratelimit.File
	for i := range res.RateLimitConfigs {
		data, err := ConfigFile(&res.RateLimitConfigs[i])
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, envoyratelimit.File{Key: fmt.Sprintf("config.%d.yaml", i), Data: data})
	}
	cfg, err := envoyratelimit.Load(files, envoyratelimit.LoadOptions{})
	if err != nil {
		t.Fatalf("envoyratelimit.Load: %v", err)
	}
	ev, err := envoyratelimit.NewEvaluator(envoyratelimit.Options{Store: counter.NewMemoryStore(counter.MemoryOptions{})})
	if err != nil {
		t.Fatal(err)
	}
	return ev.WithConfig(cfg)
}

// checkDecisions evaluates every call of ev with the compiled configuration and checks that
// each descriptor is decided by the limit of the first rule of its domain with its chain
// (the rule that made it, unless an earlier rule has the same chain), or by its override.
func checkDecisions(t *testing.T, e *envoyratelimit.Evaluator, ev *Evaluation, res *Result) {
	t.Helper()
	rules := ev.Route.RateLimit.Global
	for _, calls := range [][]Call{ev.Calls, ev.Done} {
		for _, c := range calls {
			var out limit.Result
			if err := e.Evaluate(context.Background(), time.Unix(1e9, 0), &c.Request, &out); err != nil {
				t.Fatalf("Evaluate(%+v): %v", c.Request, err)
			}
			for i, d := range c.Request.Descriptors {
				want := expectedLimit(rules, c.Rules[i], d, ev.Route.Listener().Name)
				st := out.Statuses[i]
				var got *rlsmsg.RateLimit
				if st.CurrentLimit != nil {
					got = &rlsmsg.RateLimit{RequestsPerUnit: st.CurrentLimit.RequestsPerUnit, Unit: st.CurrentLimit.Unit}
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("descriptor %s of rule %s in domain %s: limit (-want +got):\n%s", d.Describe(), c.Rules[i], c.Request.Domain, diff)
				}
			}
		}
	}
}

func expectedLimit(rules []*Rule, name string, d rlsmsg.Descriptor, listener string) *rlsmsg.RateLimit {
	if d.Limit != nil {
		return &rlsmsg.RateLimit{RequestsPerUnit: d.Limit.RequestsPerUnit, Unit: d.Limit.Unit}
	}
	i := 0
	for rules[i].Name != name {
		i++
	}
	mine := chain(rules, i)
	for j := range rules[:i+1] {
		if domainOf(rules[j], listener) == domainOf(rules[i], listener) && outerKey(rules[j], "") == outerKey(rules[i], "") && sameChain(chain(rules, j), mine) {
			i = j
			break
		}
	}
	unit, _ := rlsmsg.ParseUnit(strings.ToUpper(string(rules[i].Unit)))
	return &rlsmsg.RateLimit{RequestsPerUnit: rules[i].Requests, Unit: unit}
}

func gatewayRef(name string) gatewayv1.LocalPolicyTargetReferenceWithSectionName {
	return gatewayv1.LocalPolicyTargetReferenceWithSectionName{LocalPolicyTargetReference: gatewayv1.LocalPolicyTargetReference{
		Group: gatewayv1.GroupName, Kind: "Gateway", Name: gatewayv1.ObjectName(name)}}
}
