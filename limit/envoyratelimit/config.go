package envoyratelimit

import (
	"strings"
	"time"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// ParseUnit returns the unit named s, case-insensitively as the reference
// reads it, and whether it is a valid unit (UNKNOWN is not). Units are
// rlpkit's one definition, rlsmsg.Unit, numbered as Envoy's protocol (a
// month is 30 days, a year 365 days, as the reference counts them).
func ParseUnit(s string) (rlsmsg.Unit, bool) {
	return rlsmsg.ParseUnit(strings.ToUpper(s))
}

// Config is a loaded configuration: the domains of every file. It is
// immutable once loaded and safe for concurrent use.
type Config struct {
	domains map[string]*Domain
	order   []string // domain names in load order
}

// Domain returns the configuration of the named domain, or nil.
func (c *Config) Domain(name string) *Domain {
	if c == nil {
		return nil
	}
	return c.domains[name]
}

// Domains returns the domains in the order they were loaded.
func (c *Config) Domains() []*Domain {
	if c == nil {
		return nil
	}
	out := make([]*Domain, 0, len(c.order))
	for _, n := range c.order {
		out = append(out, c.domains[n])
	}
	return out
}

// Domain is one domain's descriptor tree.
type Domain struct {
	// Name is the domain.
	Name string
	// Files lists the keys of the files that defined it (several with
	// MERGE_DOMAIN_CONFIG).
	Files []string
	root  level
}

// Descriptors returns the top-level descriptors in file order.
func (d *Domain) Descriptors() []*Node { return d.root.nodes }

// level is the children of one node: by composite key ("key_value", or
// "key" for a key-only entry), and the wildcard ones in file order.
type level struct {
	byKey     map[string]*Node
	wildcards []*Node
	wild      wildcardIndex // the wildcards by literal prefix
	nodes     []*Node       // all, in file order
}

// Node is one descriptor of a configuration file.
type Node struct {
	// Key and Value are the descriptor's key and value ("" for key-only;
	// it may hold '*' wildcards).
	Key, Value string
	// Limits are the node's limits: none (a whitelist or an inner node),
	// one (rate_limit) or several (rate_limits).
	Limits []*Rule
	// ShadowMode forces the node's statuses to OK (and counts them as
	// shadow).
	ShadowMode bool
	// QuotaMode makes the node's limit a quota: the request is over only
	// when every quota descriptor of it is over.
	QuotaMode bool
	// DetailedMetric and ValueToMetric put the request's values in the
	// statistics names.
	DetailedMetric, ValueToMetric bool
	// ShareThreshold makes every value matching the wildcard share one
	// counter, for this node's limits and its children's.
	ShareThreshold bool
	// Metadata is the node's free metadata map.
	Metadata map[string]any
	// StatsKey is the reference's statistics key: domain and the composite
	// keys of the path, joined with '.'.
	StatsKey string
	// File and Line locate the node.
	File string
	Line int

	composite string
	children  level
}

// Children returns the node's nested descriptors in file order.
func (n *Node) Children() []*Node { return n.children.nodes }

// Rule is one limit of a descriptor.
type Rule struct {
	// Name is the limit's name (rate_limit.name), used by replaces.
	Name string
	// Unit and RequestsPerUnit are the limit; RequestsPerUnit 0 makes every
	// request over.
	Unit            rlsmsg.Unit
	RequestsPerUnit uint32
	// UnitMultiplier makes the window UnitMultiplier units long (an
	// extension; 0 and 1 mean one unit).
	UnitMultiplier uint32
	// Algorithm is the counting algorithm (an extension; fixed window by
	// default, as the reference).
	Algorithm counter.Algorithm
	// Unlimited makes the descriptor never limited.
	Unlimited bool
	// Replaces names the limits this one drops when both match.
	Replaces []string
}

// Window returns the rule's window: 0 when it is longer than
// counter.MaxWindow, which Load refuses and a counter store reports as
// invalid, rather than a window wrapped around.
func (r *Rule) Window() time.Duration {
	w, _ := limit.Window(r.Unit, r.UnitMultiplier)
	return w
}

// policy returns the counter policy of r.
func (r *Rule) policy() counter.Policy {
	return counter.Policy{Algorithm: r.Algorithm, Max: uint64(r.RequestsPerUnit), Window: r.Window()}
}

// Limits returns the number of rules (rate limits, unlimited ones
// included) in c.
func (c *Config) Limits() int {
	n := 0
	for _, d := range c.Domains() {
		n += countRules(d.Descriptors())
	}
	return n
}

func countRules(nodes []*Node) int {
	n := 0
	for _, nd := range nodes {
		n += len(nd.Limits) + countRules(nd.Children())
	}
	return n
}
