package merge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlpkit/rlpkit/policy"
)

// TestShuffledInputsGiveIdenticalOutput compiles every golden case with its documents in
// several random orders: the output must be byte-identical.
func TestShuffledInputsGiveIdenticalOutput(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join("testdata", "merge", "*"))
	for _, dir := range dirs {
		data, err := os.ReadFile(filepath.Join(dir, "input.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		docs := strings.Split(string(data), "\n---\n")
		// Some cases hold invalid objects on purpose (an Invalid policy); their problems are
		// part of what Compile reports, so the decoding error is not a failure here.
		checkOrderIndependent(t, dir, docs, rand.New(rand.NewPCG(1, uint64(len(docs)))), 5, false)
	}
}

// checkOrderIndependent compiles docs (YAML documents) as given and in shuffles random
// orders, which shuffles every slice of the decoded Set: the output must be byte-identical,
// and Compile must not fail. With valid, the documents must also decode without problems. It
// returns the result of the documents as given.
func checkOrderIndependent(t *testing.T, name string, docs []string, rng *rand.Rand, shuffles int, valid bool) *Result {
	t.Helper()
	docs = slices.Clone(docs)
	res, want := compileJSON(t, name, strings.Join(docs, "\n---\n"), valid)
	for i := range shuffles {
		rng.Shuffle(len(docs), func(a, b int) { docs[a], docs[b] = docs[b], docs[a] })
		if _, got := compileJSON(t, name, strings.Join(docs, "\n---\n"), valid); !bytes.Equal(got, want) {
			t.Errorf("%s: shuffle %d changed the output:\n%s", name, i, cmp.Diff(string(want), string(got)))
		}
	}
	return res
}

func compileJSON(t *testing.T, name, input string, valid bool) (*Result, []byte) {
	t.Helper()
	set, err := policy.Decode("input.yaml", []byte(input))
	if valid && err != nil {
		t.Fatalf("%s: the inputs are not valid:\n%v\ninputs:\n%s", name, err, input)
	}
	res, err := Compile(set, Options{})
	if err != nil {
		t.Fatalf("%s: Compile: %v\ninputs:\n%s", name, err, input)
	}
	// Warnings follow the positions of their objects in the input, which shuffling changes:
	// compare them without.
	for i := range res.Warnings {
		res.Warnings[i].Source = policy.Source{}
	}
	slices.SortFunc(res.Warnings, compareWarnings)
	out, err := json.Marshal(goldenOf(res))
	if err != nil {
		t.Fatal(err)
	}
	return res, out
}

func TestPrecedenceAddsLevels(t *testing.T) {
	mk := func(name string, def, ovr bool) *policy.RateLimitPolicy {
		p := &policy.RateLimitPolicy{}
		p.Name, p.Namespace = name, "ns"
		if def {
			p.Spec.Default = &policy.RateLimitPolicyConfig{}
		}
		if ovr {
			p.Spec.Override = &policy.RateLimitPolicyConfig{}
		}
		return p
	}
	got := func(levels ...*policy.RateLimitPolicy) []string {
		var out []string
		for _, s := range Precedence(levels...) {
			out = append(out, s.Policy.Name+"/"+string(s.Name))
		}
		return out
	}
	gw, listener, route := mk("gw", true, true), mk("listener", true, true), mk("route", true, false)
	want := []string{"gw/override", "listener/override", "route/default", "listener/default", "gw/default"}
	if diff := cmp.Diff(want, got(gw, listener, route)); diff != "" {
		t.Errorf("Precedence(gw, listener, route) (-want +got):\n%s", diff)
	}
	want = []string{"gw/override", "gw/default"}
	if diff := cmp.Diff(want, got(gw, nil)); diff != "" {
		t.Errorf("Precedence(gw, nil) (-want +got):\n%s", diff)
	}
}

// TestCustomLimitStrategy shows that a strategy is a plain function: this one keeps only the
// highest section's limits.
func TestCustomLimitStrategy(t *testing.T) {
	set, err := policy.Read([]string{filepath.Join("testdata", "merge", "proposal-patching", "input.yaml")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	highestOnly := func(sections []Section) ([]EffectiveLimit, []Replaced) {
		if len(sections) == 0 {
			return nil, nil
		}
		return PatchLimits(sections[:1])
	}
	res, err := Compile(set, Options{Limits: highestOnly, UpstreamCluster: "rls", FailureModeDeny: true})
	if err != nil {
		t.Fatal(err)
	}
	gw := res.Gateways[0]
	if len(gw.Limits) != 1 || gw.Limits[0].MaxValue != 1 {
		t.Errorf("limits = %+v, want only the Gateway override's", gw.Limits)
	}
	if p := gw.PluginConfig.RateLimitPolicies[0]; p.UpstreamCluster != "rls" || !*gw.PluginConfig.FailureModeDeny {
		t.Errorf("options not applied: upstream %q, failureModeDeny %v", p.UpstreamCluster, *gw.PluginConfig.FailureModeDeny)
	}
}

// topologyYAML returns gateways Gateways, routes HTTPRoutes spread over them, a policy per
// route and one per Gateway.
func topologyYAML(gateways, routes int) []byte {
	var b bytes.Buffer
	for g := range gateways {
		fmt.Fprintf(&b, `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw-%d, namespace: infra}
spec:
  gatewayClassName: example
  listeners: [{name: http, port: 80, protocol: HTTP, hostname: "*.gw-%d.example.com", allowedRoutes: {namespaces: {from: All}}}]
---
apiVersion: apim.kuadrant.io/v1alpha1
kind: RateLimitPolicy
metadata: {name: gw-%d, namespace: infra}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw-%d}
  default:
    gatewayActions: [{configurations: [{actions: [{remote_address: {}}]}]}]
    rateLimits: [{conditions: [], variables: [remote_address], max_value: 1000, seconds: 60}]
---
`, g, g, g, g)
	}
	for r := range routes {
		g := r % gateways
		fmt.Fprintf(&b, `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: route-%d, namespace: team-%d}
spec:
  parentRefs: [{name: gw-%d, namespace: infra}]
  hostnames: ["app-%d.gw-%d.example.com"]
  rules: [{matches: [{path: {type: PathPrefix, value: /api}}]}]
---
apiVersion: apim.kuadrant.io/v1alpha1
kind: RateLimitPolicy
metadata: {name: route-%d, namespace: team-%d}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: route-%d}
  default:
    gatewayActions:
    - rules: [{paths: ["/api/admin*"], methods: [POST]}]
      configurations: [{actions: [{generic_key: {descriptor_key: admin, descriptor_value: "yes"}}]}]
    rateLimits:
    - {conditions: ["admin == yes"], variables: [], max_value: 10, seconds: 60}
    - {conditions: [], variables: [remote_address], max_value: 100, seconds: 60}
---
`, r, r%50, g, r, g, r, r%50, r)
	}
	return b.Bytes()
}

// readLarge reads a stream of documents larger than one input may be, as files of at most
// 8 MiB each in a directory.
func readLarge(b *testing.B, data []byte) *policy.Set {
	b.Helper()
	dir := b.TempDir()
	var files []string
	for len(data) > 0 {
		n := min(len(data), 8<<20)
		if n < len(data) {
			n = bytes.LastIndex(data[:n], []byte("\n---\n")) + len("\n---\n")
		}
		f := filepath.Join(dir, fmt.Sprintf("part-%03d.yaml", len(files)))
		if err := os.WriteFile(f, data[:n], 0o600); err != nil {
			b.Fatal(err)
		}
		files, data = append(files, f), data[n:]
	}
	set, err := policy.Read(files, nil)
	if err != nil {
		b.Fatal(err)
	}
	return set
}

// BenchmarkCompile compiles 100 Gateways with 1,000, 10,000 and 50,000 HTTPRoutes, a policy
// per route and per Gateway (reading excluded).
func BenchmarkCompile(b *testing.B) {
	for _, routes := range []int{1000, 10000, 50000} {
		set := readLarge(b, topologyYAML(100, routes))
		b.Run(fmt.Sprintf("gateways=100/routes=%d", routes), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				res, err := Compile(set, Options{})
				if err != nil {
					b.Fatal(err)
				}
				if n := len(res.Policies); n != routes+100 {
					b.Fatalf("%d policy statuses, want %d", n, routes+100)
				}
			}
		})
	}
}
