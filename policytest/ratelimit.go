package policytest

import (
	"strings"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/envoyratelimit"
	"github.com/rlpkit/rlpkit/limit/limitador"
)

// RateLimitTarget returns the target of a Frontend and an envoyproxy/ratelimit
// configuration (package limit/envoyratelimit), decided with that service's semantics.
// Target.Limits lists every rule, for replays and explanations: Namespace is its domain,
// Name its rate_limit name or else its path below the domain ("key_value.key", as the
// rate-limit service names it in statistics), MaxValue and Seconds its limit.
func RateLimitTarget(frontend Frontend, cfg *envoyratelimit.Config) *Target {
	t := NewTarget(frontend, ratelimitRules(cfg))
	t.rl = cfg
	return t
}

// ratelimitRules lists the rules of cfg in file order; unlimited rules have MaxValue 0
// and Seconds 0.
func ratelimitRules(cfg *envoyratelimit.Config) []limitador.Limit {
	var out []limitador.Limit
	var walk func(domain string, nodes []*envoyratelimit.Node)
	walk = func(domain string, nodes []*envoyratelimit.Node) {
		for _, n := range nodes {
			for _, r := range n.Limits {
				name := r.Name
				if name == "" {
					name = strings.TrimPrefix(n.StatsKey, domain+".")
				}
				l := limitador.Limit{Namespace: domain, Name: name}
				if !r.Unlimited {
					l.MaxValue, l.Seconds = r.RequestsPerUnit, uint32(r.Window().Seconds())
				}
				out = append(out, l)
			}
			walk(domain, n.Children())
		}
	}
	for _, d := range cfg.Domains() {
		walk(d.Name, d.Descriptors())
	}
	return out
}

// newEvaluator returns the evaluator of the target's rate-limit service over store.
func (t *Target) newEvaluator(store counter.Store) (limit.Evaluator, error) {
	if t.rl != nil {
		ev, err := envoyratelimit.NewEvaluator(envoyratelimit.Options{Store: store})
		if err != nil {
			return nil, err
		}
		return ev.WithConfig(t.rl), nil
	}
	return limitador.NewEvaluator(t.Limits, store)
}

// nameStatuses names the current limit of each status of an envoyproxy/ratelimit answer
// after its rule: rules[i] for status i when the call names its rules, else the counter's
// metric name; an override keeps no name.
func (t *Target) nameStatuses(rules []string, res *limit.Result) {
	if t.rl == nil {
		return
	}
	if rules != nil {
		for i := range res.Statuses {
			if st := &res.Statuses[i]; st.CurrentLimit != nil {
				l := *st.CurrentLimit
				l.Name = rules[i]
				st.CurrentLimit = &l
			}
		}
		return
	}
	for i := range res.Statuses {
		st := &res.Statuses[i]
		if st.CurrentLimit == nil {
			continue
		}
		for _, c := range res.Counters {
			if c.Limit == st.CurrentLimit {
				l := *st.CurrentLimit
				l.Name = c.Name
				st.CurrentLimit = &l
				break
			}
		}
	}
}
