package kuadrant

import (
	"slices"

	"github.com/rlpkit/rlpkit/bundle"
	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policyapi"
)

var _ policyapi.Bundler = (*Compiled)(nil)

// Bundles returns, per Gateway, what kuadrant-operator deploys for it: wasm-shim's
// configuration (bundle.KuadrantWasm) and Limitador's limits (bundle.KuadrantLimits, "[]"
// for none), with the RateLimitPolicies and TokenRateLimitPolicies on its paths.
func (c *Compiled) Bundles() []policyapi.Bundle {
	policies := map[string][]policyapi.PolicyRef{}
	for _, eff := range []struct {
		kind      string
		effective []EffectivePolicy
	}{{"", c.Effective}, {policy.KindTokenRateLimitPolicy, c.TokenEffective}} {
		for _, e := range eff.effective {
			if e.Path.Gateway == nil {
				continue
			}
			gw := e.Path.Gateway.Namespace + "/" + e.Path.Gateway.Name
			for _, p := range e.Policies {
				ref := policyapi.PolicyRef{Kind: eff.kind, Name: p.Namespace + "/" + p.Name}
				if !slices.Contains(policies[gw], ref) {
					policies[gw] = append(policies[gw], ref)
				}
			}
		}
	}
	out := make([]policyapi.Bundle, 0, len(c.Gateways))
	for i := range c.Gateways {
		gw := &c.Gateways[i]
		limits := gw.Limits
		if limits == nil {
			limits = []limitador.Limit{}
		}
		out = append(out, policyapi.Bundle{
			Gateway:  gw.Gateway,
			Files:    []policyapi.BundleFile{{Name: bundle.KuadrantWasm, Value: &gw.Wasm}, {Name: bundle.KuadrantLimits, Value: limits}},
			Limits:   gw.Limits,
			Policies: policies[gw.Gateway],
		})
	}
	return out
}
