package policytest

import (
	"fmt"
	"strings"

	"github.com/rlpkit/rlpkit/kuadrant"
	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/wasmshim"
)

// kuadrantTarget returns the target of Gateway gateway of res, compiled from the
// kuadrant.io/v1 RateLimitPolicies of set: wasm-shim's configuration as the Frontend,
// Limitador's limits renamed after their origin (see LimitNames); nil when res has no such
// Gateway.
func kuadrantTarget(set *policy.Set, res *kuadrant.Result, gateway string) (*Target, error) {
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
		return NewTarget(WasmFrontend(ev), limits), nil
	}
	return nil, nil
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
