package envoyratelimit

import (
	"strings"

	"github.com/rlpkit/rlpkit/rlsmsg"
)

// Stat names the statistics an evaluated limit counts in (Options.Observe).
type Stat struct {
	// Domain is the request's domain, one the configuration has.
	Domain string
	// Key is the reference's statistics key, "domain.path": the statistics
	// are ratelimit.service.rate_limit.<Key>.<name>. It may be kept.
	Key string
	// Kind says where Key's path comes from, and so whether it holds
	// values of the request.
	Kind StatKind
}

// StatKind says where a statistics key's path comes from.
type StatKind uint8

const (
	// StatConfigured is a configured path (Node.StatsKey, a wildcard as
	// its pattern): the configuration bounds these keys.
	StatConfigured StatKind = iota
	// StatDetailed is the path of a detailed_metric or value_to_metric
	// rule, which holds the request's values: clients choose how many
	// there are.
	StatDetailed
	// StatOverride is a descriptor's own limit override, keyed by its
	// entries ("domain.k1_v1.k2_v2", as the reference names it): request
	// values too.
	StatOverride
)

// statsKey is the reference's statistics key of a match: the configured
// path ("domain.key_value.key"); with detailed_metric on the leaf, every
// entry of the request as "key_value"; with value_to_metric on a level, the
// request's value on that level. A share_threshold level always keeps its
// pattern, in both ("domain.files_files/*.user_u1").
func statsKey(domain string, entries []rlsmsg.Entry, path []*Node) (string, StatKind) {
	leaf := path[len(path)-1]
	if leaf.DetailedMetric {
		return detailedStatsKey(domain, entries, path), StatDetailed
	}
	valueToMetric := false
	for _, n := range path {
		valueToMetric = valueToMetric || n.ValueToMetric
	}
	if !valueToMetric {
		return leaf.StatsKey, StatConfigured
	}
	var b strings.Builder
	b.WriteString(domain)
	for i, n := range path {
		b.WriteByte('.')
		b.WriteString(n.Key)
		v := n.Value
		if n.ValueToMetric && !sharesThreshold(n) {
			v = entries[i].Value
		}
		if v != "" {
			b.WriteByte('_')
			b.WriteString(v)
		}
	}
	if k := b.String(); k != leaf.StatsKey {
		return k, StatDetailed
	}
	return leaf.StatsKey, StatConfigured
}

// sharesThreshold reports whether n is a share_threshold wildcard, whose
// statistics keep its pattern whatever the flags.
func sharesThreshold(n *Node) bool {
	return n.ShareThreshold && strings.Contains(n.Value, "*")
}

// detailedStatsKey is the key of a detailed_metric leaf: "domain.k1_v1.k2_v2"
// with the "_" even before an empty value, as the reference writes it;
// when a level shares its threshold, that level is its pattern and an empty
// value elsewhere drops its "_" (the reference builds that key apart).
func detailedStatsKey(domain string, entries []rlsmsg.Entry, path []*Node) string {
	shared := false
	for _, n := range path {
		shared = shared || sharesThreshold(n)
	}
	var b strings.Builder
	b.WriteString(domain)
	for i, en := range entries {
		b.WriteByte('.')
		b.WriteString(en.Key)
		switch {
		case shared && sharesThreshold(path[i]):
			b.WriteByte('_')
			b.WriteString(path[i].Value)
		case !shared || en.Value != "":
			b.WriteByte('_')
			b.WriteString(en.Value)
		}
	}
	return b.String()
}

// overrideStatsKey is "domain.k1_v1.k2_v2".
func overrideStatsKey(domain string, entries []rlsmsg.Entry) string {
	var b strings.Builder
	b.WriteString(domain)
	for _, en := range entries {
		b.WriteByte('.')
		b.WriteString(en.Key)
		if en.Value != "" {
			b.WriteByte('_')
			b.WriteString(en.Value)
		}
	}
	return b.String()
}
