package policytest

import (
	"fmt"
	"strings"

	"github.com/rlpkit/rlpkit/kuadrant"
	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/merge"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policy/kuadrantv1"
	"github.com/rlpkit/rlpkit/wasmshim"
)

// compileKuadrant returns the target of Gateway gateway compiled from the kuadrant.io/v1
// RateLimitPolicies of set: wasm-shim's configuration as the Frontend, Limitador's limits
// renamed after their origin (see LimitNames).
func compileKuadrant(set *policy.Set, gateway string) (*Target, error) {
	res := kuadrant.Compile(set, kuadrant.Options{})
	for _, gw := range res.Gateways {
		if gw.Gateway != gateway {
			continue
		}
		ev, err := wasmshim.New(&gw.Wasm)
		if err != nil {
			return nil, fmt.Errorf("Gateway %s: %w", gateway, err)
		}
		names := LimitNames(set)
		limits := make([]limitador.Limit, len(gw.Limits))
		for i, l := range gw.Limits {
			if name, ok := names[limitID(&l)]; ok {
				l.Name = name
			}
			limits[i] = l
		}
		t := NewTarget(WasmFrontend(ev), limits)
		t.Warnings = KuadrantWarnings(set, res)
		return t, nil
	}
	return nil, noGateway(set, gateway)
}

// LimitNames returns, by the identifier kuadrant.LimitID gives it, the name a PolicyTest
// uses for each limit of the kuadrant.io/v1 RateLimitPolicies of set: "ns/policy
// limits.name", whichever of spec.limits, spec.defaults or spec.overrides holds it.
func LimitNames(set *policy.Set) map[string]string {
	out := map[string]string{}
	for _, p := range set.PoliciesV1 {
		for name := range kuadrant.RulesOf(p) {
			if name == kuadrant.WhenRule {
				continue
			}
			out[kuadrant.LimitID(p, name)] = p.Namespace + "/" + p.Name + " limits." + name
		}
	}
	return out
}

// limitID returns the identifier in a compiled limit's condition
// `descriptors[0]["<id>"] == "1"`, "" when it has none.
func limitID(l *limitador.Limit) string {
	for _, c := range l.Conditions {
		rest, ok := strings.CutPrefix(c, `descriptors[0]["`)
		if !ok {
			continue
		}
		if id, ok := strings.CutSuffix(rest, `"] == "1"`); ok {
			return id
		}
	}
	return ""
}

// KuadrantWarnings returns a warning for every status condition of res that is not True,
// at its policy's line: "file:line: RateLimitPolicy ns/name: field: Reason: message". A
// target not found adds what there is: the likely misspellings ("did you mean ...?") and
// the Gateways or HTTPRoutes of the policy's namespace, or, for a sectionName, the
// Gateway's listeners or the route's rules.
func KuadrantWarnings(set *policy.Set, res *kuadrant.Result) []merge.Warning {
	byName := map[string]*kuadrantv1.RateLimitPolicy{}
	for _, p := range set.PoliciesV1 {
		byName[p.Namespace+"/"+p.Name] = p
	}
	var out []merge.Warning
	for _, p := range res.Policies {
		for _, c := range p.Conditions {
			if c.Status == "True" {
				continue
			}
			field, msg := "spec", c.Reason+": "+c.Message
			if c.Reason == kuadrant.ReasonTargetNotFound {
				field = "spec.targetRef"
				msg += targetHint(set, byName[p.Name])
			}
			src, _ := set.FieldSource(policy.PolicyV1Key(byName[p.Name]), field)
			out = append(out, merge.Warning{Source: src, Object: "RateLimitPolicy " + p.Name, Field: field, Message: msg})
		}
	}
	return out
}
