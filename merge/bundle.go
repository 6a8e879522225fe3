package merge

import (
	"slices"

	"github.com/rlpkit/rlpkit/bundle"
	"github.com/rlpkit/rlpkit/policyapi"
)

var _ policyapi.Bundler = (*Compiled)(nil)

// Bundles returns, per Gateway, its PluginConfig (bundle.PluginConfig) and its limits,
// with the policies of the sections that apply to its routes.
func (c *Compiled) Bundles() []policyapi.Bundle {
	out := make([]policyapi.Bundle, 0, len(c.Gateways))
	for i := range c.Gateways {
		gw := &c.Gateways[i]
		b := policyapi.Bundle{
			Gateway: gw.Gateway,
			Files:   []policyapi.BundleFile{{Name: bundle.PluginConfig, Value: &gw.PluginConfig}},
			Limits:  gw.Limits,
		}
		for _, r := range gw.Routes {
			for _, sec := range r.Sections {
				if sec.Policy == nil {
					continue
				}
				ref := policyapi.PolicyRef{Name: sec.Policy.Namespace + "/" + sec.Policy.Name}
				if !slices.Contains(b.Policies, ref) {
					b.Policies = append(b.Policies, ref)
				}
			}
		}
		out = append(out, b)
	}
	return out
}
