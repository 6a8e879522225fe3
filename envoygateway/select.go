package envoygateway

import (
	"fmt"
	"slices"
	"strings"
)

// selectListeners returns the listeners of g a request to port reaches: those on the port;
// with port 0 (none given), those on port 80, else on the port of g's first listener.
func (g *Gateway) selectListeners(port int32) []*Listener {
	on := func(p int32) []*Listener {
		var out []*Listener
		for _, l := range g.Listeners {
			if l.Port == p {
				out = append(out, l)
			}
		}
		return out
	}
	if port != 0 {
		return on(port)
	}
	if ls := on(80); len(ls) > 0 || len(g.Listeners) == 0 {
		return ls
	}
	return on(g.Listeners[0].Port)
}

// virtualHost returns the most specific virtual host domain of the listeners' routes that
// matches host, as Envoy picks one (an exact domain, then the longest wildcard suffix, then
// "*"), and the listener holding it; "" when none matches.
func virtualHost(listeners []*Listener, host string) (string, *Listener) {
	best, score := "", -1
	var at *Listener
	for _, l := range listeners {
		for _, r := range l.Routes {
			s := domainScore(r.Hostname, host)
			if s > score {
				best, score, at = r.Hostname, s, l
			}
		}
	}
	return best, at
}

// domainScore ranks how specifically domain matches host: -1 when it does not, the host's
// length plus one for an exact match, the suffix's length for a wildcard, 0 for "*".
func domainScore(domain, host string) int {
	d := strings.ToLower(domain)
	switch {
	case d == host:
		return len(host) + 1
	case d == "*":
		return 0
	case strings.HasPrefix(d, "*"):
		if suffix := d[1:]; len(host) > len(suffix) && strings.HasSuffix(host, suffix) {
			return len(suffix)
		}
	}
	return -1
}

// matchRoute returns the first route of l on the virtual host domain whose match admits q.
func matchRoute(l *Listener, domain string, q *request) *Route {
	i := slices.IndexFunc(l.Routes, func(r *Route) bool { return r.Hostname == domain && r.admits(q) })
	if i < 0 {
		return nil
	}
	return l.Routes[i]
}

// admits reports whether the route's match admits q, as Envoy's route match: the path
// (a prefix "/" any, another prefix separated by "/", exact, or a full regular expression
// match, without the query), every header and every query parameter.
func (r *Route) admits(q *request) bool {
	switch p := &r.Path; {
	case p.Prefix != nil && *p.Prefix != "/":
		prefix := strings.TrimSuffix(*p.Prefix, "/")
		if q.path != prefix && !strings.HasPrefix(q.path, prefix+"/") {
			return false
		}
	case p.Exact != nil && q.path != *p.Exact:
		return false
	case p.Regex != nil && !p.matches(q.path):
		return false
	}
	for i := range r.Headers {
		v, ok := q.header(r.Headers[i].Name)
		if !ok || !r.Headers[i].matches(v) {
			return false
		}
	}
	for i := range r.Query {
		v, ok := q.query(r.Query[i].Name)
		if !ok || !r.Query[i].matches(v) {
			return false
		}
	}
	return true
}

// describe names the route for traces: its HTTPRoute or GRPCRoute, rule and match.
func (r *Route) describe() string {
	rule := fmt.Sprintf("rule %d", r.Rule)
	if r.RuleName != "" {
		rule += " (" + r.RuleName + ")"
	}
	return fmt.Sprintf("%s (%s %s %s match %d)", r.Name, r.Kind, r.HTTPRoute+r.GRPCRoute, rule, r.Match)
}
