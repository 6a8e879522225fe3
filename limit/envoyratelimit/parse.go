package envoyratelimit

import (
	"fmt"
	"iter"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/rlsmsg"
	"github.com/rlpkit/rlpkit/yamljson"
)

// Messages of the reference's load errors.
const (
	msgLoading       = "error loading config file: "
	msgKeyNotString  = "config error, key is not of type string"
	msgListNotMap    = "config error, yaml file contains list of type other than map"
	msgChecking      = "error checking config"
	msgEmptyDomain   = "config file cannot have empty domain"
	msgEmptyKey      = "descriptor has empty key"
	msgUnitUnlimited = "should not specify rate limit unit when unlimited"
	msgEmptyReplaces = "should not have an empty replaces entry"
	msgReplacesSelf  = "replaces should not contain name of same descriptor"
	msgShareWildcard = "share_threshold can only be used with wildcard values (containing '*'), but found key '%s'"
	// msgUnmarshal is yaml.v2's type error, as the reference reports it.
	msgUnmarshal      = msgLoading + "yaml: unmarshal errors:\n  line %d: cannot unmarshal %s into %s"
	msgUnknownKeyFmt  = "config error, unknown key '%s'"
	msgBadUnitFmt     = "invalid rate limit unit '%s'"
	msgDupCompositFmt = "duplicate descriptor composite key '%s'"
	msgDupDomainFmt   = "duplicate domain '%s' in config file"
)

// The keys of each level of the schema; the extensions are marked.
var (
	topKeys        = keySet("domain", "descriptors")
	descriptorKeys = keySet("key", "value", "rate_limit", "descriptors", "shadow_mode", "quota_mode",
		"detailed_metric", "value_to_metric", "share_threshold", "metadata",
		"rate_limits") // extension
	rateLimitKeys = keySet("unit", "requests_per_unit", "unlimited", "name", "replaces",
		"algorithm", "unit_multiplier") // extensions
	replacesKeys = keySet("name")
)

func keySet(keys ...string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// fileDomain is one parsed file.
type fileDomain struct {
	file   string
	domain string
	line   int
	nodes  []*Node // top-level descriptors, not yet indexed
}

// parser collects the problems of one file.
type parser struct {
	file string
	errs []error
}

func (p *parser) errorf(n *yaml.Node, path, format string, args ...any) {
	line := 0
	if n != nil {
		line = n.Line
	}
	p.errs = append(p.errs, &LoadError{File: p.file, Line: line, Path: path, Msg: fmt.Sprintf(format, args...)})
}

// parseFile parses one configuration file. It reports every problem of the
// file's shape and values; tree checks (duplicates) come when indexing.
func parseFile(file string, data []byte) (*fileDomain, []error) {
	p := &parser{file: file}
	fd := &fileDomain{file: file}
	if err := yamljson.CheckSize(data); err != nil {
		return nil, []error{boundError(file, err)}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		p.errs = append(p.errs, &LoadError{File: file, Msg: msgLoading + err.Error()})
		return nil, p.errs
	}
	// The walk below follows every alias: refuse first what it would
	// expand past rlpkit's limits, or never finish (an alias cycle).
	if err := yamljson.CheckNode(&doc); err != nil {
		return nil, []error{boundError(file, err)}
	}
	if len(doc.Content) == 0 {
		p.errorf(nil, "", msgEmptyDomain)
		return nil, p.errs
	}
	root := deref(doc.Content[0])
	if !p.mapping(root, "", topKeys) {
		return nil, p.errs
	}
	fd.line = root.Line
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], deref(root.Content[i+1])
		switch k.Value {
		case "domain":
			fd.domain, _ = p.str(v, "domain")
		case "descriptors":
			fd.nodes = p.descriptors(v, "descriptors")
		}
	}
	if fd.domain == "" && len(p.errs) == 0 {
		p.errorf(root, "domain", msgEmptyDomain)
	}
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	return fd, nil
}

// boundError is the *LoadError of a file past one of yamljson's limits on
// every input (size, alias expansion, nesting), the limit in its message.
func boundError(file string, err error) *LoadError {
	e := &LoadError{File: file, Msg: msgLoading + err.Error()}
	if ye, ok := err.(*yamljson.Error); ok {
		e.Line, e.Msg = ye.Line, msgLoading+ye.Msg
	}
	return e
}

// deref follows aliases.
func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// entries yields each key of the map n and its value, aliases resolved.
func entries(n *yaml.Node) iter.Seq2[string, *yaml.Node] {
	return func(yield func(string, *yaml.Node) bool) {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if !yield(n.Content[i].Value, deref(n.Content[i+1])) {
				return
			}
		}
	}
}

// mapping checks that n is a map whose keys are strings among allowed,
// reporting the others; it returns whether n is a map at all.
func (p *parser) mapping(n *yaml.Node, path string, allowed map[string]bool) bool {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return true // an empty value: no keys
	}
	if n.Kind != yaml.MappingNode {
		p.errorf(n, path, msgUnmarshal, n.Line, shortTag(n), "a map")
		return false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := deref(n.Content[i])
		if k.Kind != yaml.ScalarNode || k.Tag != "!!str" {
			p.errorf(k, path, msgKeyNotString+": %s", k.Value)
			continue
		}
		if !allowed[k.Value] {
			p.errorf(k, join(path, k.Value), msgUnknownKeyFmt, k.Value)
		}
	}
	return true
}

// compositeKey is a descriptor's key, with "_value" when it has a value.
func compositeKey(key, value string) string {
	if value == "" {
		return key
	}
	return key + "_" + value
}

// plainValue is n's value as the reference writes it in a message (Go's
// %v of what yaml decodes it to).
func plainValue(n *yaml.Node) string {
	var v any
	if err := n.Decode(&v); err != nil {
		return n.Value
	}
	return fmt.Sprintf("%v", v)
}

func shortTag(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "!!map"
	case yaml.SequenceNode:
		return "!!seq"
	}
	return fmt.Sprintf("%s `%s`", n.Tag, n.Value)
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// scalar checks that n is a scalar other than a float (the reference
// rejects float leaves with "error checking config").
func (p *parser) scalar(n *yaml.Node, path, into string) bool {
	if n.Kind != yaml.ScalarNode {
		p.errorf(n, path, msgUnmarshal, n.Line, shortTag(n), into)
		return false
	}
	if n.Tag == "!!float" {
		p.errorf(n, path, msgChecking)
		return false
	}
	return true
}

func (p *parser) str(n *yaml.Node, path string) (string, bool) {
	if !p.scalar(n, path, "string") {
		return "", false
	}
	if n.Tag == "!!null" {
		return "", true
	}
	return n.Value, true
}

func (p *parser) boolean(n *yaml.Node, path string) bool {
	if !p.scalar(n, path, "bool") || n.Tag == "!!null" {
		return false
	}
	b, err := strconv.ParseBool(n.Value)
	if n.Tag != "!!bool" || err != nil {
		p.errorf(n, path, msgUnmarshal, n.Line, shortTag(n), "bool")
		return false
	}
	return b
}

func (p *parser) uint32(n *yaml.Node, path string) uint32 {
	if !p.scalar(n, path, "uint32") || n.Tag == "!!null" {
		return 0
	}
	v, err := strconv.ParseUint(n.Value, 0, 32)
	if n.Tag != "!!int" || err != nil {
		p.errorf(n, path, msgUnmarshal, n.Line, shortTag(n), "uint32")
		return 0
	}
	return uint32(v)
}

// list checks that n is a list of maps and returns its items.
func (p *parser) list(n *yaml.Node, path string) []*yaml.Node {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		p.errorf(n, path, msgUnmarshal, n.Line, shortTag(n), "a list")
		return nil
	}
	var items []*yaml.Node
	for i, c := range n.Content {
		c = deref(c)
		if c.Kind != yaml.MappingNode {
			p.errorf(c, fmt.Sprintf("%s[%d]", path, i), msgListNotMap+": %s", plainValue(c))
			continue
		}
		items = append(items, c)
	}
	return items
}

// descriptors parses a list of descriptors.
func (p *parser) descriptors(n *yaml.Node, path string) []*Node {
	var out []*Node
	for i, item := range p.list(n, path) {
		if d := p.descriptor(item, fmt.Sprintf("%s[%d]", path, i)); d != nil {
			out = append(out, d)
		}
	}
	return out
}

func (p *parser) descriptor(n *yaml.Node, path string) *Node {
	p.mapping(n, path, descriptorKeys)
	d := &Node{File: p.file, Line: n.Line}
	var one, several *yaml.Node
	for k, v := range entries(n) {
		fp := join(path, k)
		switch k {
		case "key":
			d.Key, _ = p.str(v, fp)
		case "value":
			d.Value, _ = p.str(v, fp)
		case "rate_limit":
			one = v
			if r := p.rateLimit(v, fp, true); r != nil {
				d.Limits = append(d.Limits, r)
			}
		case "rate_limits":
			several = v
			for j, item := range p.list(v, fp) {
				if r := p.rateLimit(item, fmt.Sprintf("%s[%d]", fp, j), false); r != nil {
					d.Limits = append(d.Limits, r)
				}
			}
		case "descriptors":
			d.children.nodes = p.descriptors(v, fp)
		case "shadow_mode":
			d.ShadowMode = p.boolean(v, fp)
		case "quota_mode":
			d.QuotaMode = p.boolean(v, fp)
		case "detailed_metric":
			d.DetailedMetric = p.boolean(v, fp)
		case "value_to_metric":
			d.ValueToMetric = p.boolean(v, fp)
		case "share_threshold":
			d.ShareThreshold = p.boolean(v, fp)
		case "metadata":
			var m map[string]any
			if err := v.Decode(&m); err != nil {
				p.errorf(v, fp, msgLoading+"%s", err.Error())
			}
			if m != nil {
				m = normalizeMetadata(m).(map[string]any)
				if _, err := rlsmsg.AppendStruct(nil, m); err != nil {
					p.errorf(v, fp, "error parsing metadata: %s", strings.TrimPrefix(err.Error(), "rlsmsg: "))
				}
			}
			d.Metadata = m
		}
	}
	if d.Key == "" {
		p.errorf(n, join(path, "key"), msgEmptyKey)
	}
	if one != nil && several != nil {
		p.errorf(several, join(path, "rate_limits"), "rate_limit and rate_limits cannot both be set: move the limit of rate_limit into rate_limits")
	}
	if d.ShareThreshold && !strings.Contains(d.Value, "*") {
		p.errorf(n, join(path, "share_threshold"), msgShareWildcard, compositeKey(d.Key, d.Value))
	}
	return d
}

// rateLimit parses a rate_limit map (unlimitedOK is false in rate_limits,
// where an unlimited entry would make the others meaningless).
func (p *parser) rateLimit(n *yaml.Node, path string, unlimitedOK bool) *Rule {
	if !p.mapping(n, path, rateLimitKeys) {
		return nil
	}
	r := &Rule{}
	var unit string
	var unitNode, multNode *yaml.Node
	for k, v := range entries(n) {
		fp := join(path, k)
		switch k {
		case "unit":
			unit, _ = p.str(v, fp)
			unitNode = v
		case "requests_per_unit":
			r.RequestsPerUnit = p.uint32(v, fp)
		case "unlimited":
			r.Unlimited = p.boolean(v, fp)
			if r.Unlimited && !unlimitedOK {
				p.errorf(v, fp, "unlimited cannot be used in rate_limits: use rate_limit")
			}
		case "name":
			r.Name, _ = p.str(v, fp)
		case "replaces":
			for j, item := range p.list(v, fp) {
				ip := fmt.Sprintf("%s[%d]", fp, j)
				p.mapping(item, ip, replacesKeys)
				name := ""
				for k, v := range entries(item) {
					if k == "name" {
						name, _ = p.str(v, ip+".name")
					}
				}
				if name == "" {
					p.errorf(item, ip, msgEmptyReplaces)
					continue
				}
				r.Replaces = append(r.Replaces, name)
			}
		case "algorithm":
			s, ok := p.str(v, fp)
			if !ok {
				break
			}
			a, err := counter.ParseAlgorithm(s)
			if err != nil {
				p.errorf(v, fp, "unknown algorithm %q: want fixed_window, sliding_window, token_bucket or gcra", s)
			}
			r.Algorithm = a
		case "unit_multiplier":
			r.UnitMultiplier, multNode = p.uint32(v, fp), v
			if r.UnitMultiplier == 0 {
				p.errorf(v, fp, "unit_multiplier must be at least 1")
			}
		}
	}
	u, valid := ParseUnit(unit)
	switch {
	case r.Unlimited && valid:
		p.errorf(unitNode, join(path, "unit"), msgUnitUnlimited)
	case !r.Unlimited && !valid:
		at := unitNode
		if at == nil {
			at = n
		}
		p.errorf(at, join(path, "unit"), msgBadUnitFmt, unit)
	}
	r.Unit = u
	if _, ok := limit.Window(u, r.UnitMultiplier); valid && !ok {
		p.errorf(multNode, join(path, "unit_multiplier"), "unit_multiplier %d makes a window of %d %ss, longer than the longest window, %d seconds (about 136 years)",
			r.UnitMultiplier, r.UnitMultiplier, strings.ToLower(u.String()), counter.MaxWindow/time.Second)
	}
	for _, name := range r.Replaces {
		if r.Name != "" && name == r.Name {
			p.errorf(n, join(path, "replaces"), msgReplacesSelf)
		}
	}
	return r
}
