package envoyxds

import (
	"strconv"
	"strings"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/hostindex"
)

// vhostPlan is one virtual host to generate: its domains (normalised, without the
// trailing-dot variants), the policies that can serve its requests in the order descriptor
// tries them, and for each of those policies which rules its hosts let match.
type vhostPlan struct {
	domains []string
	chain   []policyPlan
}

// policyPlan is a policy as seen from one virtual host: enabled[g][r] says whether rule r of
// gateway action g can match a request for the virtual host's domains, as far as the rule's
// hosts are concerned.
type policyPlan struct {
	index   int
	enabled [][]bool
}

// planVirtualHosts decides the virtual hosts. Every policy hostname and every rule host is a
// domain, so that Envoy's choice of virtual host settles both which policies are candidates
// (descriptor walks hostname patterns from the most specific, as Envoy picks the most
// specific domain) and whether each rule's hosts match; domains with the same outcome share a
// virtual host. Domains no policy serves get none, as in descriptor no policy applies.
func planVirtualHosts(cfg *descriptor.PluginConfig) []*vhostPlan {
	index := hostindex.New[int]()
	var domains []string
	seen := make(map[string]bool)
	addDomain := func(h string) {
		d := hostindex.Normalize(h)
		if !seen[d] {
			seen[d] = true
			domains = append(domains, d)
		}
	}
	for i := range cfg.RateLimitPolicies {
		for _, h := range cfg.RateLimitPolicies[i].Hostnames {
			_ = index.Add(h, i) // validated by descriptor.Validate
			addDomain(h)
		}
	}
	for i := range cfg.RateLimitPolicies {
		for _, ga := range cfg.RateLimitPolicies[i].GatewayActions {
			for _, r := range ga.Rules {
				for _, h := range r.Hosts {
					addDomain(h)
				}
			}
		}
	}

	var plans []*vhostPlan
	byKey := make(map[string]*vhostPlan)
	for _, d := range domains {
		rep := representative(d)
		var chain []policyPlan
		index.Walk(rep, func(m hostindex.Match[int]) bool {
			for _, i := range m.Values {
				pol := &cfg.RateLimitPolicies[i]
				chain = append(chain, policyPlan{index: i, enabled: enabledRules(pol, rep)})
				if len(pol.RouteMatches) == 0 {
					return false // it takes every request: the policies after it are unreachable
				}
			}
			return true
		})
		if len(chain) == 0 {
			continue
		}
		key := chainKey(chain)
		if p, ok := byKey[key]; ok {
			p.domains = append(p.domains, d)
			continue
		}
		p := &vhostPlan{domains: []string{d}, chain: chain}
		byKey[key] = p
		plans = append(plans, p)
	}
	return plans
}

// representative returns a host that the normalised domain d matches and no more specific
// pattern can: d itself when exact, and otherwise d with its "*" replaced by "_", a label no
// valid pattern holds.
func representative(d string) string {
	if rest, ok := strings.CutPrefix(d, "*"); ok {
		return "_" + rest
	}
	return d
}

// enabledRules evaluates the hosts of every rule of pol for the host rep, with descriptor's
// rule semantics: exact names, or "*."-suffixes with at least one byte before, compared
// case-insensitively; a rule without hosts matches any host.
func enabledRules(pol *descriptor.Policy, rep string) [][]bool {
	out := make([][]bool, len(pol.GatewayActions))
	for g, ga := range pol.GatewayActions {
		out[g] = make([]bool, len(ga.Rules))
		for r, rule := range ga.Rules {
			ok := len(rule.Hosts) == 0
			for _, h := range rule.Hosts {
				if ruleHostMatches(hostindex.Normalize(h), rep) {
					ok = true
					break
				}
			}
			out[g][r] = ok
		}
	}
	return out
}

// ruleHostMatches reports whether the normalised rule host pattern matches host.
func ruleHostMatches(pattern, host string) bool {
	if suffix, ok := strings.CutPrefix(pattern, "*"); ok {
		return len(host) > len(suffix) && strings.HasSuffix(host, suffix)
	}
	return host == pattern
}

func chainKey(chain []policyPlan) string {
	var b strings.Builder
	for _, p := range chain {
		b.WriteString(strconv.Itoa(p.index))
		b.WriteByte(':')
		for _, rules := range p.enabled {
			for _, ok := range rules {
				if ok {
					b.WriteByte('1')
				} else {
					b.WriteByte('0')
				}
			}
			b.WriteByte(',')
		}
		b.WriteByte(';')
	}
	return b.String()
}

// envoyDomains returns the virtual host domains for the normalised domains: each one, and
// for all but "*" the same name with a trailing dot, which descriptor ignores and Envoy's
// domain matching does not.
func envoyDomains(domains []string) []string {
	out := make([]string, 0, 2*len(domains))
	for _, d := range domains {
		out = append(out, d)
		if d != "*" {
			out = append(out, d+".")
		}
	}
	return out
}
