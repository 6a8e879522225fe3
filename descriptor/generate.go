package descriptor

import (
	"net/netip"
	"strings"

	"github.com/rlpkit/rlpkit/hostindex"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// Generate returns the descriptors for req. It allocates the Result (one allocation for a
// typical request); GenerateInto reuses one instead.
func (e *Engine) Generate(req *Request) *Result {
	res := new(Result)
	e.generate(req, res, nil)
	return res
}

// GenerateInto writes the descriptors for req into res, reusing its memory: once res has
// served a request of each policy, generation allocates nothing (a limit override or a cost
// read from metadata included).
func (e *Engine) GenerateInto(req *Request, res *Result) { e.generate(req, res, nil) }

// Explain is Generate with a Trace of every decision taken.
func (e *Engine) Explain(req *Request) (*Result, *Trace) {
	res, tr := new(Result), new(Trace)
	e.generate(req, res, tr)
	return res, tr
}

// generate implements DESIGN section 4. tr, when not nil, records why.
func (e *Engine) generate(req *Request, res *Result, tr *Trace) {
	pol := e.selectPolicy(req, tr)
	res.reset(pol, req.HitsAddend)
	if pol == nil {
		return
	}
	res.PolicyIndex, res.Policy, res.Domain = pol.index, pol.name, pol.domain
	reqPath := stripQuery(req.Path)
	host := hostindex.TrimHost(req.Host)
	for gi := range pol.actions {
		ga := &pol.actions[gi]
		ruleIndex, applies := ga.match(req.Method, reqPath, host)
		var step *ActionStep
		if tr != nil {
			tr.GatewayActions = append(tr.GatewayActions, ActionStep{Index: gi, Applied: applies, Rule: ruleIndex})
			step = &tr.GatewayActions[len(tr.GatewayActions)-1]
		}
		if !applies {
			continue
		}
		for ci := range ga.configs {
			dropped, reason := ga.configs[ci].build(req, res)
			if step != nil {
				cs := ConfigurationStep{Index: ci, Descriptor: -1, DroppedBy: dropped, Reason: reason}
				if dropped < 0 {
					cs.Descriptor = len(res.Descriptors) - 1
				}
				step.Configurations = append(step.Configurations, cs)
			}
		}
	}
}

// selectPolicy walks the hostname matches from the most specific and returns the first policy
// whose route matches match, or nil.
func (e *Engine) selectPolicy(req *Request, tr *Trace) *policy {
	var chosen *policy
	if tr != nil {
		tr.Host = hostindex.Normalize(req.Host)
		tr.PolicyIndex = -1
	}
	e.hosts.Walk(req.Host, func(m hostindex.Match[int]) bool {
		var step *HostnameStep
		if tr != nil {
			tr.Hostnames = append(tr.Hostnames, HostnameStep{Pattern: m.Pattern})
			step = &tr.Hostnames[len(tr.Hostnames)-1]
		}
		for _, i := range m.Values {
			p := &e.policies[i]
			ok := p.matchRoute(req)
			if step != nil {
				step.Policies = append(step.Policies, PolicyStep{Index: i, Name: p.name, RouteMatched: ok})
			}
			if ok {
				chosen = p
				return false
			}
		}
		return true
	})
	if tr != nil && chosen != nil {
		tr.PolicyIndex, tr.Policy = chosen.index, chosen.name
	}
	return chosen
}

// build appends the configuration's descriptor to res. When an action cannot append its
// entry, it leaves res as it was and returns that action's index and why; otherwise -1.
func (c *configuration) build(req *Request, res *Result) (dropped int, reason string) {
	start := len(res.entries)
	for i := range c.actions {
		if reason := c.actions[i].appendEntry(req, res); reason != "" {
			res.entries = res.entries[:start]
			return i, reason
		}
	}
	end := len(res.entries)
	d := rlsmsg.Descriptor{Entries: res.entries[start:end:end]}
	if c.limit != nil {
		if o, ok := readOverride(req, c.limit); ok {
			res.overrides = append(res.overrides, o)
			d.Limit = &res.overrides[len(res.overrides)-1]
		}
	}
	if c.hits.kind != hitsNone {
		n := c.hits.number
		switch c.hits.kind {
		case hitsMetadata:
			n = readHits(req, &c.hits.meta)
		case hitsResponseBody:
			// Checked at the request, charged when the response body is known.
			n = 0
			res.ResponseCosts = append(res.ResponseCosts, ResponseCost{Descriptor: len(res.Descriptors), JSONPointer: c.hits.pointer})
		}
		res.hits = append(res.hits, n)
		d.HitsAddend = &res.hits[len(res.hits)-1]
	}
	res.Descriptors = append(res.Descriptors, d)
	return -1, ""
}

// appendEntry appends the action's entry, or returns why it cannot ("" when it appended one
// or, with skip_if_absent, legitimately appended nothing).
func (a *action) appendEntry(req *Request, res *Result) string {
	v, ok := a.value, true
	switch a.kind {
	case actRequestHeaders:
		if v, ok = headerValue(req, a.header); !ok {
			return a.absent("request_headers: header ", a.header)
		}
	case actQueryParameters:
		if v, ok = queryValue(req.Path, a.param); !ok {
			return a.absent("query_parameters: query parameter ", a.param)
		}
	case actRemoteAddress:
		if v, ok = clientIP(req.RemoteAddress); !ok {
			return "remote_address: the request has no client IP address"
		}
	case actMetadata:
		if m, _ := lookupMetadata(req, &a.meta).(string); m != "" {
			v = m
		} else if v == "" {
			if a.skipIfAbsent {
				return ""
			}
			return "metadata: no string value at " + a.meta.String()
		}
	case actRemoteAddressMatch:
		return a.appendRemoteAddressMatch(req, res)
	case actQueryValueMatch:
		if matchQuery(req.Path, a.queries) != a.expectMatch {
			if a.expectMatch {
				return "query_parameter_value_match: the query parameters do not match"
			}
			return "query_parameter_value_match: the query parameters match and expect_match is false"
		}
	case actHeaderValueMatch:
		if matchHeaders(req, a.matchers) != a.expectMatch {
			if a.expectMatch {
				return "header_value_match: the headers do not match"
			}
			return "header_value_match: the headers match and expect_match is false"
		}
	}
	res.entries = append(res.entries, rlsmsg.Entry{Key: a.key, Value: v})
	return ""
}

// absent is what an action reading an absent value (what, then name) returns: "" with
// skip_if_absent, which appends nothing and keeps the descriptor, else why it is dropped.
func (a *action) absent(what, name string) string {
	if a.skipIfAbsent {
		return ""
	}
	return what + quote(name) + " is absent"
}

// headerValue returns the first value of a lower-case header name; pseudo-headers read the
// request line, as Envoy's header map holds them.
func headerValue(req *Request, name string) (string, bool) {
	if strings.HasPrefix(name, ":") {
		return req.Pseudo(name)
	}
	if req.Headers == nil {
		return "", false
	}
	return req.Headers.Get(name)
}

// clientIP returns the IP address of a client address, without port or brackets.
func clientIP(addr string) (string, bool) {
	if addr == "" {
		return "", false
	}
	host := addr
	switch {
	case addr[0] == '[':
		end := strings.IndexByte(addr, ']')
		if end < 0 {
			return "", false
		}
		host = addr[1:end]
	case strings.Count(addr, ":") == 1:
		host = addr[:strings.IndexByte(addr, ':')]
	}
	if _, err := netip.ParseAddr(host); err != nil {
		return "", false
	}
	return host, true
}

// stripQuery returns the path of a request target, without query string or fragment.
func stripQuery(p string) string {
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		return p[:i]
	}
	return p
}
