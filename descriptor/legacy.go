package descriptor

import "sort"

// LegacyPluginConfig is the older PluginConfig schema of the Kuadrant proposal
// "RateLimitPolicy targeting a Gateway resource":
//
//	failure_mode_deny: true
//	ratelimitpolicies:
//	  default/toystore:
//	    hosts: ['*.toystore.com']
//	    rules:
//	    - operations: [{paths: [/admin/toy], methods: [POST, DELETE]}]
//	      actions: [{generic_key: {descriptor_key: admin, descriptor_value: "yes"}}]
//	    global_actions: [{generic_key: {descriptor_key: vhaction, descriptor_value: "yes"}}]
//	    upstream_cluster: rate-limit-cluster
//	    domain: toystore-app
//
// Decode recognises it and converts it with Convert.
//
// +kubebuilder:object:generate=true
type LegacyPluginConfig struct {
	// FailureModeDeny is PluginConfig.FailureModeDeny.
	FailureModeDeny *bool `json:"failure_mode_deny,omitempty"`
	// RateLimitPolicies maps a policy name to its definition.
	RateLimitPolicies map[string]LegacyPolicy `json:"ratelimitpolicies,omitempty"`
}

// LegacyPolicy is one policy of a LegacyPluginConfig.
//
// +kubebuilder:object:generate=true
type LegacyPolicy struct {
	// Hosts is Policy.Hostnames.
	Hosts []string `json:"hosts"`
	// Rules are route-level actions guarded by operations.
	Rules []LegacyRule `json:"rules,omitempty"`
	// GlobalActions apply to every request of the policy's hosts.
	GlobalActions []Action `json:"global_actions,omitempty"`
	// UpstreamCluster is Policy.UpstreamCluster.
	UpstreamCluster string `json:"upstream_cluster"`
	// Domain is Policy.RateLimitDomain.
	Domain string `json:"domain"`
}

// LegacyRule is a list of operations (any may match) and the actions of one descriptor.
//
// +kubebuilder:object:generate=true
type LegacyRule struct {
	// Operations are the rule's match conditions; they have the fields of Rule.
	Operations []Rule `json:"operations,omitempty"`
	// Actions build one descriptor.
	Actions []Action `json:"actions,omitempty"`
}

// legacyKeys are the top-level keys that only the older schema has.
var legacyKeys = []string{"ratelimitpolicies", "failure_mode_deny"}

func isLegacy(obj map[string]any) bool {
	for _, k := range legacyKeys {
		if _, ok := obj[k]; ok {
			return true
		}
	}
	return false
}

// Convert returns the PluginConfig the legacy configuration means: policies in name order,
// each legacy rule a gateway action whose rules are its operations and whose one
// configuration holds its actions, and global_actions a last gateway action with no rules.
func (l *LegacyPluginConfig) Convert() *PluginConfig {
	names := make([]string, 0, len(l.RateLimitPolicies))
	for name := range l.RateLimitPolicies {
		names = append(names, name)
	}
	sort.Strings(names)

	cfg := &PluginConfig{FailureModeDeny: l.FailureModeDeny}
	for _, name := range names {
		lp := l.RateLimitPolicies[name]
		p := Policy{
			Name:            name,
			RateLimitDomain: lp.Domain,
			UpstreamCluster: lp.UpstreamCluster,
			Hostnames:       lp.Hosts,
		}
		for _, r := range lp.Rules {
			p.GatewayActions = append(p.GatewayActions, GatewayAction{
				Rules:          r.Operations,
				Configurations: []Configuration{{Actions: r.Actions}},
			})
		}
		if len(lp.GlobalActions) > 0 {
			p.GatewayActions = append(p.GatewayActions, GatewayAction{
				Configurations: []Configuration{{Actions: lp.GlobalActions}},
			})
		}
		cfg.RateLimitPolicies = append(cfg.RateLimitPolicies, p)
	}
	return cfg
}
