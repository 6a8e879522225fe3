package kuadrant

import (
	"bytes"
	"cmp"
	"encoding/json"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/rlpkit/rlpkit/internal/golden"
	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/policy"
)

// guidePeer is what kuadrant-operator v1.5.2 gives for a guide's objects, as
// testdata/guides/<case>/peer.yaml restates it: per Gateway "namespace/name" the wasm-shim
// configuration (services and action sets; a Gateway without action sets is absent),
// Limitador's limits for the cluster (sorted by namespace, name, conditions and window),
// and every RateLimitPolicy's and TokenRateLimitPolicy's conditions.
type guidePeer struct {
	Wasm     map[string]guideWasm `json:"wasm"`
	Limits   []any                `json:"limits"`
	Statuses []guideStatus        `json:"statuses"`
}

type guideWasm struct {
	Services   any `json:"services"`
	ActionSets any `json:"actionSets"`
}

type guideStatus struct {
	Kind       string            `json:"kind"`
	Name       string            `json:"name"`
	Conditions []goldenCondition `json:"conditions"`
}

// guideGeneric returns v as JSON decodes it into an any, so that rlpkit's values and the
// peer's YAML compare field by field.
func guideGeneric(t *testing.T, v any) any {
	t.Helper()
	js, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(js, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// guideView returns rlpkit's result for a case in the shape of peer.yaml, keyed as the
// differ table names its parts: "services <gw>", "actionSets <gw>", "rateLimitActions
// <gw>", "limits" and "status <Kind> <namespace/name>".
func guideView(t *testing.T, res *Result) map[string]any {
	t.Helper()
	out := map[string]any{}
	for _, g := range res.Gateways {
		if len(g.Wasm.ActionSets) == 0 {
			continue
		}
		out["services "+g.Gateway] = guideGeneric(t, g.Wasm.Services)
		out["actionSets "+g.Gateway] = guideGeneric(t, g.Wasm.ActionSets)
		guideRateLimitOnly(out, g.Gateway)
	}
	limits := res.Limits()
	slices.SortStableFunc(limits, func(a, b limitador.Limit) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name),
			slices.Compare(a.Conditions, b.Conditions), cmp.Compare(a.Seconds, b.Seconds))
	})
	out["limits"] = guideGeneric(t, limits)
	for _, p := range append(slices.Clone(res.Policies), res.TokenPolicies...) {
		kind := cmp.Or(p.Kind, "RateLimitPolicy")
		st := guideStatus{Kind: kind, Name: p.Name}
		for _, c := range p.Conditions {
			st.Conditions = append(st.Conditions, goldenCondition{c.Type, string(c.Status), c.Reason, c.Message})
		}
		out["status "+kind+" "+p.Name] = guideGeneric(t, st.Conditions)
	}
	return out
}

// guideRateLimitOnly adds "rateLimitActions <gw>": the Gateway's action sets without their
// auth-service actions, an action set left with none dropped; absent when none is left.
// It tells a difference that only the auth action makes from any other.
func guideRateLimitOnly(out map[string]any, gw string) {
	var sets []any
	all, _ := out["actionSets "+gw].([]any)
	for _, s := range all {
		set, _ := s.(map[string]any)
		var actions []any
		list, _ := set["actions"].([]any)
		for _, a := range list {
			if action, _ := a.(map[string]any); action["service"] != AuthServiceName {
				actions = append(actions, a)
			}
		}
		if len(actions) == 0 {
			continue
		}
		kept := maps.Clone(set)
		kept["actions"] = actions
		sets = append(sets, kept)
	}
	if len(sets) > 0 {
		out["rateLimitActions "+gw] = sets
	}
}

// view returns peer.yaml keyed as guideView.
func (p *guidePeer) view(t *testing.T) map[string]any {
	out := map[string]any{}
	for gw, w := range p.Wasm {
		out["services "+gw] = guideGeneric(t, w.Services)
		out["actionSets "+gw] = guideGeneric(t, w.ActionSets)
		guideRateLimitOnly(out, gw)
	}
	limits := p.Limits
	if limits == nil {
		limits = []any{}
	}
	out["limits"] = guideGeneric(t, limits)
	for _, s := range p.Statuses {
		out["status "+s.Kind+" "+s.Name] = guideGeneric(t, s.Conditions)
	}
	return out
}

// TestKuadrantGuides runs kuadrant-operator v1.5.2's rate-limiting user guides and examples
// (doc/user-guides/ratelimiting/*, full-walkthrough/secure-protect-connect.md,
// tokenratelimitpolicy/*, egress/egress-gateway.md, auth/app-id-app-key-authentication.md,
// observability/token-metrics.md, rbac/gateway-api-personas.md, the overview's overlapping
// policies, examples/toystore and examples/grpc-backend), restated in
// testdata/guides/<case>: input.yaml holds the objects a guide applies (at its final
// state, and at an earlier one where the guide shows a change), peer.yaml what the
// operator's own code gives for them, want.yaml rlpkit's full output, rewritten with
// -update. peer.yaml comes from running the operator's validators,
// effective-policy reconcilers, Istio wasm configuration builder, Limitador limits builder
// and status updaters on input.yaml outside this repository, with every listener
// programmed, every route accepted, Limitador ready and the Gateways' extension objects in
// place (the steady state the guides reach). A case agrees with the operator unless the
// table names the parts that differ, and why; those must still differ, so that the table
// stays true.
func TestKuadrantGuides(t *testing.T) {
	cases := []struct {
		name string
		// differ are the parts ("services <gw>", "actionSets <gw>", "rateLimitActions
		// <gw>", "limits", "status <Kind> <namespace/name>") that differ from the
		// operator's, and why says why.
		differ []string
		why    string
	}{
		{name: "simple-rl"},
		{name: "gateway-rl-no-route"},
		{name: "gateway-rl"},
		{name: "multi-listener-rl"},
		{name: "shared-rule-rl"},
		{name: "authenticated-rl"},
		{name: "jwt-k8s-authnz"},
		{name: "jwt-k8s-authnz-as-written"},
		{name: "grpc-service-limit"},
		{name: "grpc-method-override"},
		{name: "grpc-section-auth"},
		{name: "walkthrough-gateway"},
		{name: "walkthrough-final"},
		{name: "toystore-gateway"},
		{name: "toystore-route"},
		{name: "toystore-no-auth"},
		{name: "toystore-token"},
		{name: "grpcbin-global"},
		{name: "grpcbin-methods"},
		{name: "grpcbin-no-reflection"},
		{name: "token-tutorial"},
		{name: "egress-route-limit"},
		{name: "egress-per-workload"},
		{name: "overlap-defaults"},
		{name: "overlap-overrides"},
		{name: "app-id-key"},
		{name: "token-route"},
		{name: "personas-app"},
	}
	dirs := golden.Glob(t, filepath.Join("testdata", "guides", "*"))
	if len(dirs) != len(cases) {
		t.Errorf("testdata/guides has %d cases, the table %d", len(dirs), len(cases))
	}
	agree := 0
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join("testdata", "guides", tc.name)
			data, err := os.ReadFile(filepath.Join(dir, "input.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			set, err := policy.Decode("input.yaml", data)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			res := Compile(set, Options{})
			got := render(t, res)
			golden.Check(t, filepath.Join(dir, "want.yaml"), got)
			docs := strings.Split(string(data), "\n---\n")
			rng := rand.New(rand.NewPCG(2, uint64(len(docs))))
			for i := range 3 {
				rng.Shuffle(len(docs), func(a, b int) { docs[a], docs[b] = docs[b], docs[a] })
				set, err := policy.Decode("input.yaml", []byte(strings.Join(docs, "\n---\n")))
				if err != nil {
					t.Fatalf("Decode(shuffle %d): %v", i, err)
				}
				if again := render(t, Compile(set, Options{})); !bytes.Equal(again, got) {
					t.Fatalf("Compile(shuffle %d) differs from Compile(input):\n%s", i, gocmp.Diff(string(got), string(again)))
				}
			}

			raw, err := os.ReadFile(filepath.Join(dir, "peer.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			var peer guidePeer
			if err := yaml.UnmarshalStrict(raw, &peer); err != nil {
				t.Fatalf("peer.yaml: %v", err)
			}
			want, have := peer.view(t), guideView(t, res)
			keys := map[string]bool{}
			for k := range want {
				keys[k] = true
			}
			for k := range have {
				keys[k] = true
			}
			sorted := make([]string, 0, len(keys))
			for k := range keys {
				sorted = append(sorted, k)
			}
			slices.Sort(sorted)
			same := true
			for _, k := range sorted {
				diff := gocmp.Diff(want[k], have[k])
				known := slices.Contains(tc.differ, k)
				switch {
				case diff != "" && !known:
					t.Errorf("%s differs from the operator's (-operator +rlpkit):\n%s", k, diff)
				case diff == "" && known:
					t.Errorf("%s now agrees with the operator's: remove it from the table (%s)", k, tc.why)
				}
				if diff != "" {
					same = false
				}
			}
			for _, k := range tc.differ {
				if !keys[k] {
					t.Errorf("the table names %s, which neither side has", k)
				}
			}
			if same {
				agree++
			}
		})
	}
	t.Logf("%d of %d cases agree with kuadrant-operator v1.5.2 in full", agree, len(cases))
}
