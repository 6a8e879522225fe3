package envoygateway

import (
	"strings"

	"github.com/rlpkit/rlpkit/limit/envoyratelimit"
)

// RateLimitConfig is the configuration of one domain that Envoy Gateway serves to its
// rate-limit service: Name, and an envoyproxy/ratelimit configuration file whose
// Descriptors are one per route (or per shared rule), each holding one chain per rule,
// shadow_mode set on every descriptor of a shadow rule.
type RateLimitConfig struct {
	// Name is the domain: a listener's "ns/gateway/listener" or a shared rule's policy
	// "ns/name".
	Name string `json:"name"`
	envoyratelimit.DomainConfig
}

// chain returns the descriptor chain of rule i of rules, in the order of its actions, the
// limit on the last descriptor.
func chain(rules []*Rule, i int) *envoyratelimit.DescriptorConfig {
	r := rules[i]
	d := domainIndex(rules, i)
	var links []*envoyratelimit.DescriptorConfig
	add := func(key, value string) {
		links = append(links, &envoyratelimit.DescriptorConfig{Key: key, Value: value, ShadowMode: r.ShadowMode})
	}
	for mi, h := range r.Headers {
		if h.Distinct {
			add(matchKey(d, mi), "")
		} else {
			add(matchKey(d, mi), matchKey(d, mi))
		}
	}
	if len(r.Methods) > 0 {
		add(methodKey(d), methodKey(d))
	}
	if r.Path != nil {
		add(pathKey(d), pathKey(d))
	}
	if r.CIDR != nil {
		add(keyMaskedRemoteAddress, cidrValue(r.CIDR))
		if r.CIDR.Distinct {
			add(keyRemoteAddress, "")
		}
	}
	for qi, q := range r.Query {
		key := matchKey(d, len(r.Headers)+qi)
		if q.Distinct {
			add(key, "")
		} else {
			add(key, key)
		}
	}
	if !r.matchSet() {
		add(matchKey(d, -1), matchKey(d, -1))
	}
	links[len(links)-1].RateLimit = &envoyratelimit.LimitConfig{Unit: strings.ToUpper(string(r.Unit)), RequestsPerUnit: r.Requests}
	for k := len(links) - 1; k > 0; k-- {
		links[k-1].Descriptors = []*envoyratelimit.DescriptorConfig{links[k]}
	}
	return links[0]
}

// sameChain compares two chains by keys and values, limits aside.
func sameChain(a, b *envoyratelimit.DescriptorConfig) bool {
	if a.Key != b.Key || a.Value != b.Value || len(a.Descriptors) != len(b.Descriptors) {
		return false
	}
	for i := range a.Descriptors {
		if !sameChain(a.Descriptors[i], b.Descriptors[i]) {
			return false
		}
	}
	return true
}

// configs accumulates the rate-limit service configuration, domain by domain.
type configs struct {
	byDomain map[string]*RateLimitConfig
}

// add adds the chains of a route's global rules on a listener: under a descriptor keyed by
// the route's name (or, for a shared rule, the rule's name) in the rule's domain, a chain
// equal to one already there being dropped.
func (c *configs) add(route, listener string, rules []*Rule) {
	for i, r := range rules {
		domain := domainOf(r, listener)
		cfg := c.byDomain[domain]
		if cfg == nil {
			cfg = &RateLimitConfig{Name: domain, DomainConfig: envoyratelimit.DomainConfig{Domain: domain}}
			c.byDomain[domain] = cfg
		}
		key := outerKey(r, route)
		var outer *envoyratelimit.DescriptorConfig
		for _, d := range cfg.Descriptors {
			if d.Key == key {
				outer = d
				break
			}
		}
		if outer == nil {
			outer = &envoyratelimit.DescriptorConfig{Key: key, Value: key}
			cfg.Descriptors = append(cfg.Descriptors, outer)
		}
		ch := chain(rules, i)
		dup := false
		for _, d := range outer.Descriptors {
			dup = dup || sameChain(d, ch)
		}
		if !dup {
			outer.Descriptors = append(outer.Descriptors, ch)
		}
	}
}
