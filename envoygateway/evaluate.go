package envoygateway

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// The name of Envoy's rate-limit filter; a shared rule's domain has its own, the name
// followed by "/<domain>".
const rateLimitFilter = "envoy.filters.http.ratelimit"

// Evaluation is what Envoy does with a request on a Gateway: the route it takes and the
// calls its rate-limit filters make.
type Evaluation struct {
	// Listener is the listener that took the request ("ns/gateway/listener"), "" when the
	// Gateway has none on the port; VirtualHost the virtual host's domain.
	Listener, VirtualHost string
	// Route is the route matched; nil when none (Envoy answers 404).
	Route *Route
	// Calls are the calls of the rate-limit filters when the request arrives, in filter
	// order (the listener's domain, then shared rules' domains by name), each with at
	// least one descriptor.
	Calls []Call
	// Done are the calls made when the response is done: the descriptors of the rules
	// with a response cost.
	Done []Call
	// Local is the local rate limit's descriptors for the request; nil when the route has
	// no local rate limit.
	Local *LocalRequest
	// Trace tells, line by line, how the route and every descriptor were chosen.
	Trace []string
}

// Call is one call of a rate-limit filter to the rate-limit service.
type Call struct {
	// Filter is the filter's name.
	Filter string
	// Request is the RateLimitRequest.
	Request rlsmsg.Request
	// Rules are the names of the rules of the request's descriptors, one each.
	Rules []string
	// FromResponse marks a call made when the response is done whose costs the response
	// wrote (EvaluateResponse); the filter's other descriptors are in a call of their own.
	FromResponse bool `json:",omitempty"`
}

// Evaluate returns what Envoy does with req on the Gateway: the listener on port (0: port
// 80, else the first listener's), the virtual host and route, and the descriptors every
// rate-limit filter sends, generated from the route's rules as Envoy's rate-limit actions
// would. It does not call any service.
func (g *Gateway) Evaluate(req *descriptor.Request, port int32) *Evaluation {
	return g.evaluate(req, port, nil)
}

// evaluate is Evaluate for a request whose response, when not nil, is resp.
func (g *Gateway) evaluate(req *descriptor.Request, port int32, resp *Response) *Evaluation {
	q := newRequest(req)
	q.response = resp
	ev := &Evaluation{}
	listeners := g.selectListeners(port)
	if len(listeners) == 0 {
		ev.tracef("Gateway %s has no HTTP listener on port %d: no route", g.Name, port)
		return ev
	}
	domain, l := virtualHost(listeners, q.host)
	if l == nil {
		ev.tracef("no virtual host of the listeners on port %d serves host %q: no route", listeners[0].Port, q.host)
		return ev
	}
	ev.Listener, ev.VirtualHost = l.Name, domain
	rt := matchRoute(l, domain, q)
	if rt == nil {
		ev.tracef("listener %s, virtual host %s: no route matches %s %s (404)", l.Name, domain, req.Method, req.Path)
		return ev
	}
	ev.Route = rt
	ev.tracef("listener %s, virtual host %s, route %s", l.Name, domain, rt.describe())
	switch {
	case rt.DirectResponse != 0:
		ev.tracef("the route answers %d: a BackendTrafficPolicy that covers it is invalid; no rate limit applies", rt.DirectResponse)
		return ev
	case rt.RateLimit == nil:
		ev.tracef("no rate limit: %s", rt.noLimitReason())
		return ev
	}
	ev.tracef("rate limits of %s", rt.origin())
	if grpcCall(q) {
		ev.tracef("a gRPC call: Envoy answers one a rate limit denies with HTTP 200 and grpc-status 14 (UNAVAILABLE), its gRPC form of 429")
	}
	if rt.RateLimit.Local != nil {
		ev.Local = localRequest(rt, q, ev)
	}
	ev.globalCalls(rt, l.Name, q)
	return ev
}

func (ev *Evaluation) tracef(format string, a ...any) {
	ev.Trace = append(ev.Trace, fmt.Sprintf(format, a...))
}

// noLimitReason says why a route has no rate limit.
func (r *Route) noLimitReason() string {
	if r.Policy == "" {
		return "no BackendTrafficPolicy covers the route"
	}
	return r.origin() + ", which sets none, covers the route, hiding less specific policies"
}

// origin names the policy (and parent) the route's settings come from.
func (r *Route) origin() string {
	s := fmt.Sprintf("BackendTrafficPolicy %s (%s level)", r.Policy, r.Level)
	if r.Parent != "" {
		s += " merged into " + r.Parent
	}
	return s
}

// globalCalls generates the route's global descriptors, request-time and on stream done,
// grouped in one call per filter.
func (ev *Evaluation) globalCalls(rt *Route, listener string, q *request) {
	rules := rt.RateLimit.Global
	q.done = ev.streamDone(q, rules)
	calls := map[string]*Call{}
	done := map[string]*Call{}
	add := func(m map[string]*Call, domain, rule string, d rlsmsg.Descriptor, fromResponse bool) {
		key := domain
		if fromResponse {
			key += "\x00response"
		}
		c := m[key]
		if c == nil {
			filter := rateLimitFilter
			if domain != listener {
				filter += "/" + domain
			}
			c = &Call{Filter: filter, Request: rlsmsg.Request{Domain: domain, HitsAddend: q.HitsAddend}, FromResponse: fromResponse}
			m[key] = c
		}
		c.Request.Descriptors = append(c.Request.Descriptors, d)
		c.Rules = append(c.Rules, rule)
	}
	for i, r := range rules {
		domain := domainOf(r, listener)
		for _, d := range ev.ruleDescriptors(rules, i, rt.Name, q) {
			add(calls, domain, r.Name, d.request, false)
			if d.done != nil {
				add(done, domain, r.Name, *d.done, d.fromResponse)
			}
		}
	}
	ev.Calls, ev.Done = ordered(calls, listener), ordered(done, listener)
}

// ordered returns the calls in filter order: the listener's domain first, then by name.
func ordered(m map[string]*Call, listener string) []Call {
	var out []Call
	for _, c := range m {
		out = append(out, *c)
	}
	slices.SortFunc(out, func(a, b Call) int {
		switch {
		case a.Request.Domain == b.Request.Domain:
			return cmpBool(a.FromResponse, b.FromResponse)
		case a.Request.Domain == listener:
			return -1
		case b.Request.Domain == listener:
			return 1
		}
		return strings.Compare(a.Filter, b.Filter)
	})
	return out
}
