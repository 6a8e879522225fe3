package envoygateway

import (
	"fmt"
	"math"
	"strconv"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// ruleDescriptor is what one RateLimit of a rule sends: its descriptor when the request
// arrives and, with a response cost, the one sent when the response is done.
type ruleDescriptor struct {
	request rlsmsg.Descriptor
	done    *rlsmsg.Descriptor
	// fromResponse says done's cost is what the response wrote (response.go).
	fromResponse bool
}

// ruleDescriptors returns the descriptors rule i of rules gives a request on route: one
// per method it matches (one when it matches none), none when a selector does not hold.
func (ev *Evaluation) ruleDescriptors(rules []*Rule, i int, route string, q *request) []ruleDescriptor {
	r := rules[i]
	d := domainIndex(rules, i)
	methods := []*StringMatch{nil}
	if len(r.Methods) > 0 {
		methods = methods[:0]
		for mi := range r.Methods {
			methods = append(methods, &r.Methods[mi])
		}
	}
	var out []ruleDescriptor
	for _, m := range methods {
		key := outerKey(r, route)
		entries := []rlsmsg.Entry{{Key: key, Value: key}}
		more, why := ruleEntries(r, d, m, q, keyMaskedRemoteAddress, keyRemoteAddress)
		if why != "" {
			ev.tracef("rule %s%s: %s: no descriptor", r.Name, methodNote(m), why)
			continue
		}
		entries = append(entries, more...)
		if !r.matchSet() {
			entries = append(entries, rlsmsg.Entry{Key: matchKey(d, -1), Value: matchKey(d, -1)})
		}
		rd := ruleDescriptor{request: rlsmsg.Descriptor{Entries: entries}}
		if md := r.FromMetadata; md != nil {
			rd.request.Limit = limitOverride(q.DynamicMetadata, md.Namespace, md.Key)
		}
		if c := r.RequestCost; c != nil && c.set() {
			hits, ok := costOf(q.DynamicMetadata, c)
			if !ok {
				ev.tracef("rule %s%s: the request cost %s is not a number in the metadata: Envoy drops the descriptor", r.Name, methodNote(m), c.Format())
				continue
			}
			rd.request.HitsAddend = &hits
		}
		if c := r.ResponseCost; c != nil {
			done := rlsmsg.Descriptor{Entries: entries, Limit: rd.request.Limit}
			if md := r.FromMetadata; md != nil {
				done.Limit = limitOverride(q.done, md.Namespace, md.Key)
			}
			if hits, ok := costOf(q.done, c); ok || !c.set() {
				if c.set() {
					done.HitsAddend = &hits
				}
				rd.done, rd.fromResponse = &done, q.done.fromResponse(c)
			} else {
				ev.tracef("rule %s%s: the response cost %s is not a number in the metadata: no descriptor when the response is done%s", r.Name, methodNote(m), c.Format(), q.done.missingNote(c))
			}
		}
		ev.tracef("rule %s%s: descriptor %s", r.Name, methodNote(m), rd.request.Describe())
		out = append(out, rd)
	}
	return out
}

func methodNote(m *StringMatch) string {
	if m == nil {
		return ""
	}
	if m.Invert {
		return " (method not " + *m.Exact + ")"
	}
	return " (method " + *m.Exact + ")"
}

// ruleEntries returns the entries of a rule's selectors, in the order of Envoy Gateway's
// actions, or why one does not hold.
func ruleEntries(r *Rule, d int, method *StringMatch, q *request, masked, remote string) ([]rlsmsg.Entry, string) {
	var out []rlsmsg.Entry
	for mi := range r.Headers {
		e, why := headerEntry(&r.Headers[mi], matchKey(d, mi), q)
		if why != "" {
			return nil, why
		}
		out = append(out, e)
	}
	if method != nil {
		if (q.Method == *method.Exact) == method.Invert {
			return nil, "method " + q.Method + " does not match " + describeMatch(method)
		}
		out = append(out, rlsmsg.Entry{Key: methodKey(d), Value: methodKey(d)})
	}
	if p := r.Path; p != nil {
		if p.matches(q.Path) == p.Invert {
			return nil, ":path " + strconv.Quote(q.Path) + " does not match " + describeMatch(p)
		}
		out = append(out, rlsmsg.Entry{Key: pathKey(d), Value: pathKey(d)})
	}
	if c := r.CIDR; c != nil {
		if !q.addr.IsValid() {
			return nil, "the request has no client address"
		}
		if c.Prefix.Contains(q.addr.AsSlice()) == c.Invert {
			return nil, fmt.Sprintf("client address %s does not match %s", q.ip, cidrValue(c))
		}
		out = append(out, rlsmsg.Entry{Key: masked, Value: cidrValue(c)})
		if c.Distinct {
			out = append(out, rlsmsg.Entry{Key: remote, Value: q.ip})
		}
	}
	for qi := range r.Query {
		e, why := queryEntry(&r.Query[qi], matchKey(d, len(r.Headers)+qi), q)
		if why != "" {
			return nil, why
		}
		out = append(out, e)
	}
	return out, ""
}

func headerEntry(h *StringMatch, key string, q *request) (rlsmsg.Entry, string) {
	if h.Distinct {
		v, ok := q.firstHeader(h.Name)
		if !ok {
			return rlsmsg.Entry{}, "header " + h.Name + " is absent"
		}
		return rlsmsg.Entry{Key: key, Value: v}, ""
	}
	v, ok := q.header(h.Name)
	if (ok && h.matches(v)) == h.Invert {
		if !ok {
			return rlsmsg.Entry{}, "header " + h.Name + " is absent"
		}
		return rlsmsg.Entry{}, "header " + h.Name + " " + strconv.Quote(v) + " does not match " + describeMatch(h)
	}
	return rlsmsg.Entry{Key: key, Value: key}, ""
}

func queryEntry(m *StringMatch, key string, q *request) (rlsmsg.Entry, string) {
	v, ok := q.query(m.Name)
	if m.Distinct {
		if !ok {
			return rlsmsg.Entry{}, "query parameter " + m.Name + " is absent"
		}
		return rlsmsg.Entry{Key: key, Value: v}, ""
	}
	if (ok && m.matches(v)) == m.Invert {
		if !ok {
			return rlsmsg.Entry{}, "query parameter " + m.Name + " is absent"
		}
		return rlsmsg.Entry{}, "query parameter " + m.Name + " " + strconv.Quote(v) + " does not match " + describeMatch(m)
	}
	return rlsmsg.Entry{Key: key, Value: key}, ""
}

// describeMatch writes a match for traces: `"gold" exactly`, `/^a+$/`, "not ...".
func describeMatch(m *StringMatch) string {
	var s string
	switch {
	case m.Exact != nil:
		s = strconv.Quote(*m.Exact)
	case m.Prefix != nil:
		s = "prefix " + strconv.Quote(*m.Prefix)
	case m.Suffix != nil:
		s = "suffix " + strconv.Quote(*m.Suffix)
	case m.Regex != nil:
		s = "/" + *m.Regex + "/"
	}
	if m.Invert {
		return "not " + s
	}
	return s
}

// limitOverride reads a {requests_per_unit, unit} struct from dynamic metadata, as Envoy's
// RateLimit.limit does: a number in the uint32 range (truncated) and a unit of
// envoy.type.v3.RateLimitUnit (SECOND..YEAR, no WEEK); anything else is no override.
func limitOverride(md descriptor.MetadataLookup, namespace, key string) *rlsmsg.Override {
	if md == nil {
		return nil
	}
	v, _ := md.Lookup(namespace, []string{key})
	obj, _ := v.(map[string]any)
	n, ok := descriptor.MetadataNumber(obj["requests_per_unit"])
	if !ok || n < 0 || n > math.MaxUint32 {
		return nil
	}
	name, _ := obj["unit"].(string)
	unit, ok := rlsmsg.ParseUnit(name)
	if !ok || unit == rlsmsg.UnitWeek {
		return nil
	}
	return &rlsmsg.Override{RequestsPerUnit: uint32(n), Unit: unit}
}

// costOf returns a cost: its number, or the value its metadata format renders, which Envoy
// parses as an unsigned integer (a number is rendered without its fraction); false when
// the value is absent or no such number.
func costOf(md descriptor.MetadataLookup, c *Cost) (uint64, bool) {
	if c.Metadata == nil {
		if c.Number == nil {
			return 0, false
		}
		return *c.Number, true
	}
	if md == nil {
		return 0, false
	}
	v, _ := md.Lookup(c.Metadata.Namespace, []string{c.Metadata.Key})
	switch x := v.(type) {
	case string:
		n, err := strconv.ParseUint(x, 10, 64)
		return n, err == nil
	default:
		f, ok := descriptor.MetadataNumber(v)
		if !ok || f < 0 || f >= math.MaxUint64 {
			return 0, false
		}
		return uint64(f), true
	}
}
