package merge

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/policy"
)

// TestRandomValidInputsCompile is a property test: random valid topologies (Namespaces,
// Gateways with listeners and hostnames, HTTPRoutes with parentRefs, hostnames and rules) and
// random valid policies (spelling variants of one limit, equivalent and duplicate actions,
// overrides, defaults, conflicts, missing targets) always compile without error, no policy is
// reported Invalid, and the output does not depend on the order of the inputs. The seeds are
// fixed, so every run checks the same cases.
func TestRandomValidInputsCompile(t *testing.T) {
	cases := 300
	if testing.Short() {
		cases = 50
	}
	for seed := range uint64(cases) {
		rng := rand.New(rand.NewPCG(seed, 0x5eed))
		docs := randomInputs(rng)
		name := fmt.Sprintf("seed %d", seed)
		res := checkOrderIndependent(t, name, docs, rng, 2, true)
		for _, p := range res.Policies {
			if c := p.Conditions[0]; c.Reason == string(policy.ReasonInvalid) {
				t.Errorf("%s: policy %s of valid inputs is Invalid: %s\ninputs:\n%s", name, p.Name, c.Message, strings.Join(docs, "\n---\n"))
			}
		}
	}
}

// gen draws random valid objects.
type gen struct {
	rng        *rand.Rand
	namespaces []string
	gateways   []genGateway
	routes     []string // "ns/name"
}

type genGateway struct {
	ns, name  string
	listeners []string
	ports     []int
}

func (g *gen) pick(list ...string) string { return list[g.rng.IntN(len(list))] }
func (g *gen) chance(p float64) bool      { return g.rng.Float64() < p }

// randomInputs returns the documents of one random valid set of objects.
func randomInputs(rng *rand.Rand) []string {
	g := &gen{rng: rng, namespaces: []string{"infra", "app-a", "app-b"}}
	var docs []any
	for _, ns := range g.namespaces {
		if g.chance(0.7) {
			docs = append(docs, obj("v1", "Namespace", "", ns, map[string]any{"labels": map[string]any{"team": g.pick("a", "b")}}, nil))
		}
	}
	for i := range 1 + rng.IntN(3) {
		docs = append(docs, g.gateway(i))
	}
	for i := range 1 + rng.IntN(6) {
		docs = append(docs, g.route(i))
	}
	for i := range rng.IntN(7) {
		docs = append(docs, g.policy(i))
	}
	out := make([]string, len(docs))
	for i, d := range docs {
		b, err := json.Marshal(d)
		if err != nil {
			panic(err)
		}
		out[i] = string(b)
	}
	return out
}

// obj returns an object with apiVersion, kind, metadata (plus extra metadata fields) and spec.
func obj(apiVersion, kind, ns, name string, meta map[string]any, spec any) map[string]any {
	m := map[string]any{"name": name}
	if ns != "" {
		m["namespace"] = ns
	}
	for k, v := range meta {
		m[k] = v
	}
	o := map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": m}
	if spec != nil {
		o["spec"] = spec
	}
	return o
}

func (g *gen) created() map[string]any {
	// Few distinct instants, so that ties fall back to namespace/name.
	return map[string]any{"creationTimestamp": fmt.Sprintf("2024-01-0%dT00:00:00Z", 1+g.rng.IntN(3))}
}

func (g *gen) gateway(i int) map[string]any {
	gw := genGateway{ns: g.pick(g.namespaces...), name: fmt.Sprintf("gw-%d", i)}
	var listeners []any
	for j := range 1 + g.rng.IntN(3) {
		l := map[string]any{
			"name":     fmt.Sprintf("l%d", j),
			"port":     []int{80, 443, 8080}[g.rng.IntN(3)],
			"protocol": g.pick("HTTP", "HTTPS", "HTTP", "TCP"),
		}
		if h := g.pick("", "", "*.example.com", "api.example.com", "*.shop.io"); h != "" {
			l["hostname"] = h
		}
		switch g.rng.IntN(4) {
		case 1:
			l["allowedRoutes"] = map[string]any{"namespaces": map[string]any{"from": "All"}}
		case 2:
			l["allowedRoutes"] = map[string]any{"namespaces": map[string]any{"from": "Selector", "selector": map[string]any{"matchLabels": map[string]any{"team": g.pick("a", "b")}}}}
		case 3:
			l["allowedRoutes"] = map[string]any{"namespaces": map[string]any{"from": "Same"}, "kinds": []any{map[string]any{"kind": g.pick("HTTPRoute", "GRPCRoute")}}}
		}
		gw.listeners = append(gw.listeners, l["name"].(string))
		gw.ports = append(gw.ports, l["port"].(int))
		listeners = append(listeners, l)
	}
	g.gateways = append(g.gateways, gw)
	return obj("gateway.networking.k8s.io/v1", "Gateway", gw.ns, gw.name, g.created(), map[string]any{"gatewayClassName": "example", "listeners": listeners})
}

func (g *gen) route(i int) map[string]any {
	ns, name := g.pick(g.namespaces...), fmt.Sprintf("route-%d", i)
	g.routes = append(g.routes, ns+"/"+name)
	var refs []any
	for range 1 + g.rng.IntN(2) {
		gw := g.gateways[g.rng.IntN(len(g.gateways))]
		ref := map[string]any{"name": gw.name}
		if gw.ns != ns || g.chance(0.3) {
			ref["namespace"] = gw.ns
		}
		switch g.rng.IntN(4) {
		case 1:
			ref["sectionName"] = gw.listeners[g.rng.IntN(len(gw.listeners))]
		case 2:
			ref["port"] = gw.ports[g.rng.IntN(len(gw.ports))]
		}
		refs = append(refs, ref)
	}
	spec := map[string]any{"parentRefs": refs}
	var hosts []any
	for range g.rng.IntN(3) {
		hosts = append(hosts, g.pick("api.example.com", "*.example.com", "www.shop.io", "*.shop.io", "other.org"))
	}
	if hosts != nil {
		spec["hostnames"] = hosts
	}
	var rules []any
	for range g.rng.IntN(3) {
		var matches []any
		for range g.rng.IntN(3) {
			m := map[string]any{}
			if g.chance(0.7) {
				m["path"] = map[string]any{"type": g.pick("Exact", "PathPrefix", "PathPrefix", "RegularExpression"), "value": g.pick("/", "/api", "/api/v1", "/toys")}
			}
			if g.chance(0.3) {
				m["method"] = g.pick("GET", "POST")
			}
			if g.chance(0.2) {
				m["headers"] = []any{map[string]any{"name": "x-version", "value": g.pick("1", "v.*"), "type": g.pick("Exact", "RegularExpression")}}
			}
			matches = append(matches, m)
		}
		rule := map[string]any{}
		if matches != nil {
			rule["matches"] = matches
		}
		rules = append(rules, rule)
	}
	if rules != nil {
		spec["rules"] = rules
	}
	return obj("gateway.networking.k8s.io/v1", "HTTPRoute", ns, name, g.created(), spec)
}

func (g *gen) policy(i int) map[string]any {
	var ns, kind, target string
	switch n := g.rng.IntN(10); {
	case n < 4:
		gw := g.gateways[g.rng.IntN(len(g.gateways))]
		ns, kind, target = gw.ns, "Gateway", gw.name
	case n < 9:
		ns, target, _ = strings.Cut(g.routes[g.rng.IntN(len(g.routes))], "/")
		kind = "HTTPRoute"
	default:
		ns, kind, target = g.pick(g.namespaces...), "HTTPRoute", "missing"
	}
	spec := map[string]any{"targetRef": map[string]any{"group": "gateway.networking.k8s.io", "kind": kind, "name": target}}
	sections := []string{"default", "override", "both"}[g.rng.IntN(3)]
	if sections != "override" {
		spec["default"] = g.section()
	}
	if sections != "default" {
		spec["override"] = g.section()
	}
	return obj("apim.kuadrant.io/v1alpha1", "RateLimitPolicy", ns, fmt.Sprintf("policy-%d", i), g.created(), spec)
}

// section returns a policy section with actions drawn from spellings of a few actions and
// limits drawn from spellings of a few limits, without two limits of one identity.
func (g *gen) section() map[string]any {
	var actions []any
	for range g.rng.IntN(4) {
		actions = append(actions, g.action())
	}
	var limits []any
	seen := map[string]bool{}
	for range g.rng.IntN(4) {
		conds, vars := g.limitSpelling()
		seconds := []int{1, 60}[g.rng.IntN(2)]
		k := limitador.IdentityKey(int64(seconds), conds, vars)
		if seen[k] {
			continue
		}
		seen[k] = true
		limits = append(limits, map[string]any{"conditions": conds, "variables": vars, "max_value": g.rng.IntN(100), "seconds": seconds})
	}
	s := map[string]any{}
	if actions != nil || g.chance(0.5) {
		s["gatewayActions"] = orEmpty(actions)
	}
	if limits != nil || g.chance(0.5) {
		s["rateLimits"] = orEmpty(limits)
	}
	return s
}

// orEmpty returns l, or an empty list written as [] rather than null.
func orEmpty(l []any) []any {
	if l == nil {
		return []any{}
	}
	return l
}

// action returns one of a few gateway actions, each in one of several equivalent spellings.
func (g *gen) action() map[string]any {
	a := map[string]any{}
	switch g.rng.IntN(3) {
	case 1:
		a["rules"] = []any{}
	case 2:
		a["rules"] = []any{map[string]any{"paths": []any{"/api*"}, "methods": []any{g.pick("GET", "POST")}, "hosts": []any{}}}
	}
	var act map[string]any
	switch g.rng.IntN(4) {
	case 0:
		gk := map[string]any{"descriptor_value": "toys"}
		if g.chance(0.5) {
			gk["descriptor_key"] = "generic_key"
		}
		act = map[string]any{"generic_key": gk}
	case 1:
		hvm := map[string]any{"descriptor_value": "admin", "headers": []any{map[string]any{"name": g.pick("x-admin", "X-Admin"), "exact_match": "yes"}}}
		if g.chance(0.5) {
			hvm["expect_match"] = true
		}
		if g.chance(0.5) {
			hvm["descriptor_key"] = "header_match"
		}
		act = map[string]any{"header_value_match": hvm}
	case 2:
		act = map[string]any{"remote_address": map[string]any{}}
	default:
		md := map[string]any{"descriptor_key": "user", "metadata_key": map[string]any{"key": "envoy.filters.http.ext_authz", "path": []any{map[string]any{"key": "user"}}}}
		if g.chance(0.5) {
			md["source"] = "DYNAMIC"
		}
		act = map[string]any{"metadata": md}
	}
	a["configurations"] = []any{map[string]any{"actions": []any{act}}}
	return a
}

// limitSpelling returns the conditions and variables of one of a few limits, each spelled one
// of several ways.
func (g *gen) limitSpelling() (conds, vars []string) {
	switch g.rng.IntN(4) {
	case 0:
		return []string{g.pick("generic_key == toys", "generic_key == 'toys'", `generic_key=="toys"`)}, []string{}
	case 1:
		return []string{}, []string{g.pick("remote_address", "descriptors[0].remote_address", "descriptors[0]['remote_address']")}
	case 2:
		return []string{g.pick("header_match == admin", "header_match == 'admin'")}, []string{g.pick("user", "descriptors[0].user")}
	}
	return []string{}, []string{}
}
