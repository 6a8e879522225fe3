package descriptor

import "strings"

// match reports whether the gateway action applies to a request, and the index of the first
// rule that matched (-1 when the action has no rules, and so applies to every request).
func (ga *gatewayAction) match(method, reqPath, host string) (rule int, applies bool) {
	if len(ga.rules) == 0 {
		return -1, true
	}
	for i := range ga.rules {
		if ga.rules[i].match(method, reqPath, host) {
			return i, true
		}
	}
	return -1, false
}

// match reports whether every non-empty field of the rule has an element matching the
// request.
func (r *rule) match(method, reqPath, host string) bool {
	if len(r.paths) > 0 && !anyMatch(r.paths, func(p rulePath) bool {
		if p.prefix {
			return strings.HasPrefix(reqPath, p.value)
		}
		return reqPath == p.value
	}) {
		return false
	}
	if len(r.methods) > 0 && !anyMatch(r.methods, func(m string) bool { return m == method }) {
		return false
	}
	if len(r.hosts) > 0 && !anyMatch(r.hosts, func(h hostPattern) bool {
		if h.wildcard {
			return len(host) > len(h.value) && strings.EqualFold(host[len(host)-len(h.value):], h.value)
		}
		return strings.EqualFold(host, h.value)
	}) {
		return false
	}
	return true
}

func anyMatch[T any](list []T, f func(T) bool) bool {
	for _, v := range list {
		if f(v) {
			return true
		}
	}
	return false
}

// matchRoute reports whether the policy's route matches admit the request: any of them
// matches, or there are none.
func (p *policy) matchRoute(req *Request) bool {
	if len(p.routeMatches) == 0 {
		return true
	}
	reqPath := stripQuery(req.Path)
	for i := range p.routeMatches {
		if p.routeMatches[i].match(req, reqPath) {
			return true
		}
	}
	return false
}

// match implements Gateway API HTTPRouteMatch semantics for path, method and headers.
func (m *routeMatch) match(req *Request, reqPath string) bool {
	if m.hasPath {
		if m.pathExact {
			if reqPath != m.path {
				return false
			}
		} else if !strings.HasPrefix(reqPath, m.path) || (len(reqPath) > len(m.path) && reqPath[len(m.path)] != '/') {
			return false
		}
	}
	if m.method != "" && m.method != req.Method {
		return false
	}
	for i := range m.headers {
		h := &m.headers[i]
		v, ok := joinedHeaderValue(req, h.name)
		if !ok {
			return false
		}
		if h.re != nil {
			if !h.re.MatchString(v) {
				return false
			}
		} else if v != h.value {
			return false
		}
	}
	return true
}

// matchHeaders reports whether every matcher matches, with Envoy's HeaderMatcher semantics.
func matchHeaders(req *Request, ms []headerMatcher) bool {
	for i := range ms {
		if !ms[i].match(req) {
			return false
		}
	}
	return true
}

func (m *headerMatcher) match(req *Request) bool {
	v, ok := joinedHeaderValue(req, m.name)
	if !ok {
		// An absent header matches only "present_match: false", or its inversion of
		// "present_match: true"; every other matcher fails, inverted or not.
		return m.kind == matchPresent && m.present == m.invert
	}
	return m.matchValue(v)
}

// matchValue matches a present value.
func (m *headerMatcher) matchValue(v string) bool {
	var matched bool
	switch m.kind {
	case matchExact:
		matched = m.value == "" && !m.strict || v == m.value
	case matchPrefix:
		matched = strings.HasPrefix(v, m.value)
	case matchSuffix:
		matched = strings.HasSuffix(v, m.value)
	case matchContains:
		matched = strings.Contains(v, m.value)
	case matchRegex:
		matched = m.re.MatchString(v)
	case matchPresent:
		matched = m.present
	}
	return matched != m.invert
}

// joinedHeaderValue returns a header's values joined with ",", as Envoy compares repeated
// headers. It allocates only for a repeated header.
func joinedHeaderValue(req *Request, name string) (string, bool) {
	if mv, ok := req.Headers.(MultiValueHeaders); ok && !strings.HasPrefix(name, ":") {
		vs := mv.Values(name)
		switch len(vs) {
		case 0:
			return "", false
		case 1:
			return vs[0], true
		default:
			return strings.Join(vs, ","), true
		}
	}
	return headerValue(req, name)
}
