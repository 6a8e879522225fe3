package kuadrant

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/wasmshim"
)

// diffRequest is a request of the differential test.
type diffRequest struct {
	host, method, path, ip, user, tier string
}

// The predicates and counters random policies use, each with an evaluation in Go that
// does not go through CEL.
var (
	diffPredicates = map[string]func(r diffRequest) bool{
		"request.method == 'POST'":                   func(r diffRequest) bool { return r.method == "POST" },
		"request.headers['x-tier'] == 'gold'":        func(r diffRequest) bool { return r.tier == "gold" },
		"!request.url_path.startsWith('/a/b')":       func(r diffRequest) bool { return !strings.HasPrefix(r.path, "/a/b") },
		"source.remote_address.startsWith('10.0.0')": func(r diffRequest) bool { return strings.HasPrefix(r.ip, "10.0.0") },
	}
	diffCounters = map[string]func(r diffRequest) (string, bool){
		"source.remote_address":       func(r diffRequest) (string, bool) { return r.ip, true },
		"request.headers['x-user']":   func(r diffRequest) (string, bool) { return r.user, r.user != "" },
		"request.url_path.size() > 2": func(r diffRequest) (string, bool) { return fmt.Sprint(len(r.path) > 2), true },
	}
)

func pick[T any](rng *rand.Rand, xs []T) T { return xs[rng.IntN(len(xs))] }

func subset[T any](rng *rand.Rand, xs []T, most int) []T {
	var out []T
	for _, i := range rng.Perm(len(xs))[:rng.IntN(min(most, len(xs))+1)] {
		out = append(out, xs[i])
	}
	return out
}

func keysOf[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// randomTopology writes one Gateway, routes and kuadrant.io/v1 policies as YAML.
func randomTopology(rng *rand.Rand) string {
	var b strings.Builder
	b.WriteString("apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: infra}\nspec:\n  gatewayClassName: istio\n  listeners:\n")
	listeners := 1 + rng.IntN(2)
	for i := range listeners {
		host := pick(rng, []string{"", "*.example.com", "api.example.com"})
		fmt.Fprintf(&b, "  - {name: l%d, port: %d, protocol: HTTP", i, 80+i)
		if host != "" {
			fmt.Fprintf(&b, ", hostname: %q", host)
		}
		b.WriteString("}\n")
	}
	routes := 1 + rng.IntN(3)
	rules := map[int]int{}
	for i := range routes {
		fmt.Fprintf(&b, "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r%d, namespace: infra, creationTimestamp: \"2026-01-0%dT00:00:00Z\"}\nspec:\n", i, 1+rng.IntN(3))
		ref := "{name: gw}"
		if rng.IntN(4) == 0 {
			ref = fmt.Sprintf("{name: gw, sectionName: l%d}", rng.IntN(listeners))
		}
		fmt.Fprintf(&b, "  parentRefs: [%s]\n", ref)
		if hs := subset(rng, []string{"api.example.com", "www.example.com", "*.example.com", "other.org"}, 2); len(hs) > 0 {
			fmt.Fprintf(&b, "  hostnames: [\"%s\"]\n", strings.Join(hs, `", "`))
		}
		b.WriteString("  rules:\n")
		rules[i] = 1 + rng.IntN(2)
		for range rules[i] {
			b.WriteString("  - matches:\n")
			for range rng.IntN(3) {
				fmt.Fprintf(&b, "    - path: {type: %s, value: %s}\n", pick(rng, []string{"Exact", "PathPrefix"}), pick(rng, []string{"/", "/a", "/a/b"}))
				if rng.IntN(3) == 0 {
					fmt.Fprintf(&b, "      method: %s\n", pick(rng, []string{"GET", "POST"}))
				}
				if rng.IntN(4) == 0 {
					b.WriteString("      headers: [{name: X-Tier, value: gold}]\n")
				}
			}
			b.WriteString("    - path: {type: PathPrefix, value: /z}\n") // never empty: the random matches may be none
		}
	}
	for i := range 1 + rng.IntN(4) {
		fmt.Fprintf(&b, "---\napiVersion: kuadrant.io/v1\nkind: RateLimitPolicy\nmetadata: {name: p%d, namespace: infra, creationTimestamp: \"2026-02-0%dT00:00:00Z\"}\nspec:\n", i, 1+rng.IntN(3))
		r := rng.IntN(routes)
		switch rng.IntN(4) {
		case 0:
			b.WriteString("  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}\n")
		case 1:
			fmt.Fprintf(&b, "  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw, sectionName: l%d}\n", rng.IntN(listeners))
		case 2:
			fmt.Fprintf(&b, "  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: r%d}\n", r)
		default:
			fmt.Fprintf(&b, "  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: r%d, sectionName: rule-%d}\n", r, 1+rng.IntN(rules[r]))
		}
		indent := "  "
		switch rng.IntN(3) {
		case 1:
			fmt.Fprintf(&b, "  defaults:\n    strategy: %s\n", pick(rng, []string{"atomic", "merge"}))
			indent = "    "
		case 2:
			fmt.Fprintf(&b, "  overrides:\n    strategy: %s\n", pick(rng, []string{"atomic", "merge"}))
			indent = "    "
		}
		if rng.IntN(3) == 0 {
			fmt.Fprintf(&b, "%swhen: [{predicate: %q}]\n", indent, pick(rng, keysOf(diffPredicates)))
		}
		fmt.Fprintf(&b, "%slimits:\n", indent)
		for _, name := range append([]string{pick(rng, []string{"a", "b"})}, subset(rng, []string{"c", "d"}, 1)...) {
			fmt.Fprintf(&b, "%s  %s:\n%s    rates: [{limit: %d, window: 1h}", indent, name, indent, 1+rng.IntN(3))
			if rng.IntN(3) == 0 {
				fmt.Fprintf(&b, ", {limit: %d, window: 2h}", 1+rng.IntN(4))
			}
			b.WriteString("]\n")
			if cs := subset(rng, keysOf(diffCounters), 2); len(cs) > 0 {
				fmt.Fprintf(&b, "%s    counters: [", indent)
				for j, c := range cs {
					if j > 0 {
						b.WriteString(", ")
					}
					fmt.Fprintf(&b, "{expression: %q}", c)
				}
				b.WriteString("]\n")
			}
			if ps := subset(rng, keysOf(diffPredicates), 1); len(ps) > 0 {
				fmt.Fprintf(&b, "%s    when: [{predicate: %q}]\n", indent, ps[0])
			}
		}
	}
	return b.String()
}

// modelEntry is one (path, hostname, match) the model routes by.
type modelEntry struct {
	e     *EffectivePolicy
	host  string
	match gatewayv1.HTTPRouteMatch
	mi    int
}

// modelMatch evaluates a route match in Go, with Gateway API's defaults.
func modelMatch(m gatewayv1.HTTPRouteMatch, r diffRequest) bool {
	if m.Method != nil && string(*m.Method) != r.method {
		return false
	}
	for _, h := range m.Headers {
		if !strings.EqualFold(string(h.Name), "x-tier") || r.tier != h.Value {
			return false
		}
	}
	t, v := gatewayv1.PathMatchPathPrefix, "/"
	if m.Path != nil {
		t, v = *m.Path.Type, *m.Path.Value
	}
	if t == gatewayv1.PathMatchExact {
		return r.path == v
	}
	return strings.HasPrefix(r.path, v)
}

// hostMatches reports whether pattern serves host, and how specific the match is: exact
// beats wildcards, longer wildcards beat shorter ones.
func hostMatches(pattern, host string) (int, bool) {
	switch {
	case pattern == host:
		return 1 << 20, true
	case pattern == "*":
		return 0, true
	case strings.HasPrefix(pattern, "*.") && strings.HasSuffix(host, pattern[1:]) && len(host) > len(pattern)-1:
		return len(pattern), true
	}
	return 0, false
}

// model is the decisions of the effective policies, evaluated without wasm-shim's
// configuration and without package limit/limitador: counters in a map, all or nothing.
type model struct {
	entries []modelEntry
	counts  map[string]int
}

func newModel(res *Result) *model {
	m := &model{counts: map[string]int{}}
	for i := range res.Effective {
		e := &res.Effective[i]
		if len(e.Limits()) == 0 {
			continue
		}
		ms := e.Path.Route.Spec.Rules[e.Path.Rule].Matches
		if len(ms) == 0 {
			ms = []gatewayv1.HTTPRouteMatch{{}}
		}
		for _, h := range e.Path.Hostnames {
			for mi, mt := range ms {
				m.entries = append(m.entries, modelEntry{e: e, host: h, match: mt, mi: mi})
			}
		}
	}
	return m
}

func pathKindRank(mt gatewayv1.HTTPRouteMatch) (int, int) {
	if mt.Path == nil {
		return 2, -1
	}
	rank := 2
	if *mt.Path.Type == gatewayv1.PathMatchExact {
		rank = 0
	}
	return rank, -len(*mt.Path.Value)
}

// decide returns the model's decision: "none" when no limit applies, else OK or
// OVER_LIMIT, counting on OK.
func (m *model) decide(r diffRequest) string {
	best, bestScore := "", -1
	for _, en := range m.entries {
		if s, ok := hostMatches(en.host, r.host); ok && s > bestScore {
			best, bestScore = en.host, s
		}
	}
	var cands []modelEntry
	for _, en := range m.entries {
		if en.host == best {
			cands = append(cands, en)
		}
	}
	slices.SortStableFunc(cands, func(a, b modelEntry) int {
		ra, la := pathKindRank(a.match)
		rb, lb := pathKindRank(b.match)
		return cmp.Or(cmp.Compare(ra, rb), cmp.Compare(la, lb),
			boolFirst(a.match.Method == nil, b.match.Method == nil),
			cmp.Compare(len(b.match.Headers), len(a.match.Headers)), cmp.Compare(len(b.match.QueryParams), len(a.match.QueryParams)),
			a.e.Path.Route.CreationTimestamp.Compare(b.e.Path.Route.CreationTimestamp.Time),
			cmp.Compare(a.e.Path.Route.Name, b.e.Path.Route.Name), cmp.Compare(a.e.Path.Rule, b.e.Path.Rule), cmp.Compare(a.mi, b.mi))
	})
	for _, en := range cands {
		if !modelMatch(en.match, r) {
			continue
		}
		var keys []string
		var maxes []int
		for _, l := range en.e.Limits() {
			holds := true
			for _, p := range l.Predicates {
				holds = holds && diffPredicates[p](r)
			}
			if !holds {
				continue
			}
			vals, ok := []string{}, true
			for _, c := range l.Limit.Counters {
				v, present := diffCounters[c.Expression](r)
				ok = ok && present
				vals = append(vals, v)
			}
			if !ok {
				continue
			}
			for ri, rate := range l.Limit.Rates {
				keys = append(keys, fmt.Sprintf("%s|%s/%s/%s|%d|%s", en.e.Path.RouteKey(), l.Source.Namespace, l.Source.Name, l.Name, ri, strings.Join(vals, ",")))
				maxes = append(maxes, int(rate.Limit))
			}
		}
		if len(keys) == 0 {
			return "none"
		}
		for i, k := range keys {
			if m.counts[k]+1 > maxes[i] {
				return "OVER_LIMIT"
			}
		}
		for _, k := range keys {
			m.counts[k]++
		}
		return "OK"
	}
	return "none"
}

// TestDifferential compiles random topologies, evaluates random requests with the wasm-shim
// evaluator on the compiled configuration and package limit/limitador on the compiled limits, and
// compares every decision with the model's, evaluated on the effective policies directly.
func TestDifferential(t *testing.T) {
	topologies := 300
	if testing.Short() {
		topologies = 50
	}
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	stats := map[string]int{}
	defer func() { t.Logf("decisions: %v", stats) }()
	for seed := range topologies {
		rng := rand.New(rand.NewPCG(uint64(seed), 7))
		input := randomTopology(rng)
		set, err := policy.Decode("random.yaml", []byte(input))
		if err != nil {
			t.Fatalf("seed %d: Decode: %v\n%s", seed, err, input)
		}
		res := Compile(set, Options{})
		for _, e := range res.Effective {
			if diff := gocmp.Diff(sourcesOf(e.Rules), sourcesOf(Effective(e.Path, set.PoliciesV1).Rules)); diff != "" {
				t.Fatalf("seed %d: path %s: Effective differs from Compile's (-compile +Effective):\n%s", seed, e.Path.ID, diff)
			}
		}
		ev, err := wasmshim.New(&res.Gateways[0].Wasm)
		if err != nil {
			t.Fatalf("seed %d: wasmshim.New: %v", seed, err)
		}
		lim, err := limitador.NewEvaluator(res.Limits(), counter.NewMemoryStore(counter.MemoryOptions{}), limitador.WithClock(func() time.Time { return now }))
		if err != nil {
			t.Fatalf("seed %d: limitador.NewEvaluator: %v", seed, err)
		}
		m := newModel(res)
		for i := range 40 {
			r := diffRequest{
				host:   pick(rng, []string{"api.example.com", "www.example.com", "x.example.com", "other.org", "example.com"}),
				method: pick(rng, []string{"GET", "POST"}), path: pick(rng, []string{"/", "/a", "/a/b", "/a/bc", "/z/1", "/q"}),
				ip: pick(rng, []string{"10.0.0.1", "10.0.0.2", "192.0.2.1"}), user: pick(rng, []string{"", "alice", "bob"}), tier: pick(rng, []string{"", "gold"}),
			}
			want := m.decide(r)
			headers := map[string][]string{}
			if r.user != "" {
				headers["x-user"] = []string{r.user}
			}
			if r.tier != "" {
				headers["x-tier"] = []string{r.tier}
			}
			out := ev.Evaluate(&wasmshim.Request{Method: r.method, Host: r.host, Path: r.path, Headers: headers, SourceAddress: r.ip + ":1234"})
			got := "none"
			for _, c := range out.Calls {
				if c.Type != wasmshim.ServiceRateLimit {
					continue
				}
				var resp limit.Result
				req := c.Request()
				if err := lim.Evaluate(context.Background(), now, &req, &resp); err != nil {
					t.Fatalf("seed %d request %d: Evaluate: %v", seed, i, err)
				}
				got = resp.OverallCode.String()
				if len(resp.Counters) == 0 {
					got = "none"
				}
			}
			stats[want]++
			if got != want {
				t.Fatalf("seed %d request %d %+v: compiled = %s, effective policies = %s\n%s\ninput:\n%s", seed, i, r, got, want, out.Explain(), input)
			}
		}
	}
}
