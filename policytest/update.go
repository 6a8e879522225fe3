package policytest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	yaml "go.yaml.in/yaml/v3"

	"github.com/rlpkit/rlpkit/rlsmsg"
)

// caseUpdate is a case that ran and what happened, for rewrite.
type caseUpdate struct {
	test   *Test
	index  int
	result CaseResult
}

// rewrite writes what happened into the expectations of the cases run, editing the YAML
// nodes so that comments and the order of keys stay: each case gets descriptors (inserted
// after its request when it had none), and each step its want and, when a limit decided,
// limit, remaining and reset (removed when none did), and statuses when it had them. A step
// whose repetitions got different answers becomes one step per run of equal answers. It
// reports whether the file changed.
func rewrite(file string, data []byte, updates []caseUpdate) (bool, error) {
	var docs []*yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return false, fmt.Errorf("%s: %v", file, err)
		}
		docs = append(docs, &n)
	}
	for _, u := range updates {
		if u.test.Doc >= len(docs) {
			return false, fmt.Errorf("%s: document %d changed while the tests ran", file, u.test.Doc)
		}
		cases := lookup(lookup(docs[u.test.Doc].Content[0], "spec"), "cases")
		if cases == nil || cases.Kind != yaml.SequenceNode || u.index >= len(cases.Content) {
			return false, fmt.Errorf("%s: %s %s: spec.cases changed while the tests ran", file, Kind, u.test.Metadata.Name)
		}
		updateCase(cases.Content[u.index], &u.result)
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	enc.CompactSeqIndent()
	for _, d := range docs {
		if err := enc.Encode(d); err != nil {
			return false, fmt.Errorf("%s: %v", file, err)
		}
	}
	if err := enc.Close(); err != nil {
		return false, err
	}
	if bytes.Equal(buf.Bytes(), data) {
		return false, nil
	}
	info, err := os.Stat(file)
	if err != nil {
		return false, err
	}
	return true, os.WriteFile(file, buf.Bytes(), info.Mode().Perm())
}

// updateCase rewrites the expectations of one case node.
func updateCase(c *yaml.Node, r *CaseResult) {
	set(c, "descriptors", descriptorsNode(r.descriptors), "request")
	steps := lookup(c, "steps")
	if steps == nil || steps.Kind != yaml.SequenceNode {
		return
	}
	var out []*yaml.Node
	for i, runs := range r.steps {
		if i >= len(steps.Content) {
			break
		}
		orig := steps.Content[i]
		for j, ru := range runs {
			n := orig
			if j > 0 {
				n = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			}
			if len(runs) > 1 || lookup(n, "repeat") != nil {
				if ru.n == 1 && j > 0 {
					del(n, "repeat")
				} else {
					set(n, "repeat", intNode(ru.n), "at")
				}
			}
			set(n, "want", strNode(ru.last.Code.String()), "repeat", "at")
			updateStatus(n, &ru.last.Status, ru.last.decided())
			if st := lookup(n, "statuses"); st != nil {
				list := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
				for k := range ru.last.Statuses {
					s := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: yaml.FlowStyle}
					set(s, "want", strNode(ru.last.Statuses[k].Code.String()))
					updateStatus(s, &ru.last.Statuses[k], ru.last.Statuses[k].CurrentLimit != nil)
					list.Content = append(list.Content, s)
				}
				set(n, "statuses", list)
			}
			out = append(out, n)
		}
	}
	steps.Content = append(out, steps.Content[min(len(r.steps), len(steps.Content)):]...)
}

// updateStatus sets limit, remaining and reset of a step or status node from st, or removes
// them when no limit decided (ok false).
func updateStatus(n *yaml.Node, st *rlsmsg.Status, ok bool) {
	if !ok {
		del(n, "limit")
		del(n, "remaining")
		del(n, "reset")
		return
	}
	set(n, "limit", strNode(st.CurrentLimit.Name), "want")
	set(n, "remaining", intNode(int(st.LimitRemaining)), "limit")
	set(n, "reset", strNode(formatDuration(st.DurationUntilReset)), "remaining")
}

// lookup returns the value of key in the mapping n, or nil.
func lookup(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// set replaces the value of key in the mapping n, keeping the comments of the old value,
// or inserts key after the first of after present (else at the end).
func set(n *yaml.Node, key string, v *yaml.Node, after ...string) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			old := n.Content[i+1]
			v.HeadComment, v.LineComment, v.FootComment = old.HeadComment, old.LineComment, old.FootComment
			if old.Kind == v.Kind && v.Kind != yaml.ScalarNode {
				v.Style = old.Style
			}
			n.Content[i+1] = v
			return
		}
	}
	at := len(n.Content)
	for _, a := range after {
		if i := keyIndex(n, a); i >= 0 {
			at = i + 2
			break
		}
	}
	k := strNode(key)
	n.Content = append(n.Content[:at], append([]*yaml.Node{k, v}, n.Content[at:]...)...)
}

// del removes key from the mapping n.
func del(n *yaml.Node, key string) {
	if i := keyIndex(n, key); i >= 0 {
		n.Content = append(n.Content[:i], n.Content[i+2:]...)
	}
}

func keyIndex(n *yaml.Node, key string) int {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return i
		}
	}
	return -1
}

func strNode(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

func intNode(i int) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(i)}
}

// descriptorsNode writes descriptors as "rlpkit descriptors" prints them, entries in flow
// style: - entries: [{key: k, value: v}].
func descriptorsNode(ds []rlsmsg.Descriptor) *yaml.Node {
	list := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	if len(ds) == 0 {
		list.Style = yaml.FlowStyle
	}
	for _, d := range ds {
		m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		entries := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle}
		for _, e := range d.Entries {
			entry := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: yaml.FlowStyle}
			set(entry, "key", strNode(e.Key))
			set(entry, "value", strNode(e.Value))
			entries.Content = append(entries.Content, entry)
		}
		set(m, "entries", entries)
		if d.Limit != nil {
			o := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: yaml.FlowStyle}
			set(o, "requests_per_unit", intNode(int(d.Limit.RequestsPerUnit)))
			set(o, "unit", strNode(d.Limit.Unit.String()))
			set(m, "limit", o)
		}
		if d.HitsAddend != nil {
			set(m, "hits_addend", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatUint(*d.HitsAddend, 10)})
		}
		list.Content = append(list.Content, m)
	}
	return list
}
