package envoyratelimit

import (
	"bytes"
	"fmt"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// DomainConfig is one configuration file of envoyproxy/ratelimit as a
// program writes it: a domain and its descriptors, in the file's schema
// (the JSON names are the file's keys). Load reads what Marshal writes
// back to the same descriptors. Envoy Gateway's compiler and
// cmd/ratelimit's xDS configuration source write their files with it.
type DomainConfig struct {
	// Domain is the file's domain.
	Domain string `json:"domain"`
	// Descriptors are the top-level descriptors.
	Descriptors []*DescriptorConfig `json:"descriptors"`
}

// DescriptorConfig is one descriptor of a configuration file; the zero
// values of its optional fields are left out when written.
type DescriptorConfig struct {
	// Key and Value are the entry matched; no value matches any.
	Key   string `json:"key"`
	Value string `json:"value,omitempty"`
	// RateLimit is the descriptor's limit.
	RateLimit *LimitConfig `json:"rate_limit,omitempty"`
	// RateLimits are several limits, counted together (an extension).
	RateLimits []*LimitConfig `json:"rate_limits,omitempty"`
	// ShadowMode, QuotaMode, DetailedMetric, ValueToMetric and
	// ShareThreshold are the flags of the same names.
	ShadowMode     bool `json:"shadow_mode,omitempty"`
	QuotaMode      bool `json:"quota_mode,omitempty"`
	DetailedMetric bool `json:"detailed_metric,omitempty"`
	ValueToMetric  bool `json:"value_to_metric,omitempty"`
	ShareThreshold bool `json:"share_threshold,omitempty"`
	// Metadata is the free metadata map.
	Metadata map[string]any `json:"metadata,omitempty"`
	// Descriptors are the nested descriptors.
	Descriptors []*DescriptorConfig `json:"descriptors,omitempty"`
}

// LimitConfig is a rate_limit entry: RequestsPerUnit per Unit (SECOND ..
// YEAR, as the reference names them; UnitMultiplier and Algorithm are
// extensions).
type LimitConfig struct {
	Unit            string          `json:"unit"`
	RequestsPerUnit uint32          `json:"requests_per_unit"`
	Unlimited       bool            `json:"unlimited,omitempty"`
	Name            string          `json:"name,omitempty"`
	Replaces        []ReplaceConfig `json:"replaces,omitempty"`
	UnitMultiplier  uint32          `json:"unit_multiplier,omitempty"`
	Algorithm       string          `json:"algorithm,omitempty"`
}

// ReplaceConfig names a limit that a limit replaces.
type ReplaceConfig struct {
	Name string `json:"name"`
}

// Marshal writes c as a configuration file, in YAML: keys sorted, two
// spaces an indent, list items at their key's indent, as Kubernetes tools
// write YAML; optional fields at their zero value are left out. Strings
// that YAML would read as something else are quoted.
func (c *DomainConfig) Marshal() ([]byte, error) {
	var w writer
	root := mapping()
	addField(root, "descriptors", w.descriptors(c.Descriptors, true))
	addField(root, "domain", str(c.Domain))
	if w.err != nil {
		return nil, w.err
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	enc.CompactSeqIndent()
	if err := enc.Encode(root); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func mapping() *yaml.Node { return &yaml.Node{Kind: yaml.MappingNode} }

func str(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

func uint32Node(v uint32) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatUint(uint64(v), 10)}
}

func boolNode() *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true"} }

// addField appends key: v to m; callers add keys in sorted order.
func addField(m *yaml.Node, key string, v *yaml.Node) {
	m.Content = append(m.Content, str(key), v)
}

// writer builds the node tree of a file; err is the first value it could
// not write (metadata that is not YAML).
type writer struct{ err error }

// descriptors writes a list of descriptors; an empty list is written as []
// only where the key is always written (top level).
func (w *writer) descriptors(ds []*DescriptorConfig, always bool) *yaml.Node {
	if len(ds) == 0 && !always {
		return nil
	}
	seq := &yaml.Node{Kind: yaml.SequenceNode}
	if len(ds) == 0 {
		seq.Style = yaml.FlowStyle
	}
	for _, d := range ds {
		seq.Content = append(seq.Content, w.descriptor(d))
	}
	return seq
}

func (w *writer) descriptor(d *DescriptorConfig) *yaml.Node {
	m := mapping()
	if n := w.descriptors(d.Descriptors, false); n != nil {
		addField(m, "descriptors", n)
	}
	if d.DetailedMetric {
		addField(m, "detailed_metric", boolNode())
	}
	addField(m, "key", str(d.Key))
	if len(d.Metadata) > 0 {
		n := &yaml.Node{}
		if err := n.Encode(d.Metadata); err != nil && w.err == nil {
			w.err = fmt.Errorf("descriptor %q: metadata: %w", d.Key, err)
		}
		addField(m, "metadata", n)
	}
	if d.QuotaMode {
		addField(m, "quota_mode", boolNode())
	}
	if d.RateLimit != nil {
		addField(m, "rate_limit", limitNode(d.RateLimit))
	}
	if len(d.RateLimits) > 0 {
		seq := &yaml.Node{Kind: yaml.SequenceNode}
		for _, l := range d.RateLimits {
			seq.Content = append(seq.Content, limitNode(l))
		}
		addField(m, "rate_limits", seq)
	}
	if d.ShadowMode {
		addField(m, "shadow_mode", boolNode())
	}
	if d.ShareThreshold {
		addField(m, "share_threshold", boolNode())
	}
	if d.Value != "" {
		addField(m, "value", str(d.Value))
	}
	if d.ValueToMetric {
		addField(m, "value_to_metric", boolNode())
	}
	return m
}

func limitNode(l *LimitConfig) *yaml.Node {
	m := mapping()
	if l.Algorithm != "" {
		addField(m, "algorithm", str(l.Algorithm))
	}
	if l.Name != "" {
		addField(m, "name", str(l.Name))
	}
	if len(l.Replaces) > 0 {
		seq := &yaml.Node{Kind: yaml.SequenceNode}
		for _, r := range l.Replaces {
			rm := mapping()
			addField(rm, "name", str(r.Name))
			seq.Content = append(seq.Content, rm)
		}
		addField(m, "replaces", seq)
	}
	addField(m, "requests_per_unit", uint32Node(l.RequestsPerUnit))
	addField(m, "unit", str(l.Unit))
	if l.UnitMultiplier != 0 {
		addField(m, "unit_multiplier", uint32Node(l.UnitMultiplier))
	}
	if l.Unlimited {
		addField(m, "unlimited", boolNode())
	}
	return m
}
