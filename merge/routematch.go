package merge

import (
	"reflect"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/rlpkit/rlpkit/descriptor"
)

// routeMatches returns the PluginConfig routeMatches of an HTTPRoute: one per match of each
// rule, so that a filter picks, among routes sharing a hostname, one whose matches admit the
// request. It returns nil (every request of the route's hostnames) when some rule matches
// every request, or when a match cannot be expressed (a RegularExpression path); query
// parameter matches are left out, so a route's routeMatches admit at least what the route
// does.
func routeMatches(r *gatewayv1.HTTPRoute) []descriptor.RouteMatch {
	var out []descriptor.RouteMatch
	for _, rule := range r.Spec.Rules {
		matches := rule.Matches
		if len(matches) == 0 {
			return nil // a rule without matches matches every request
		}
		for _, m := range matches {
			rm, ok := routeMatch(m)
			if !ok {
				return nil
			}
			if reflect.DeepEqual(rm, descriptor.RouteMatch{}) {
				return nil
			}
			if !containsRouteMatch(out, rm) {
				out = append(out, rm)
			}
		}
	}
	return out
}

func routeMatch(m gatewayv1.HTTPRouteMatch) (descriptor.RouteMatch, bool) {
	var rm descriptor.RouteMatch
	if p := m.Path; p != nil {
		typ := gatewayv1.PathMatchPathPrefix
		if p.Type != nil {
			typ = *p.Type
		}
		value := "/"
		if p.Value != nil {
			value = *p.Value
		}
		switch typ {
		case gatewayv1.PathMatchExact:
			rm.Path = &descriptor.PathMatch{Type: descriptor.PathMatchExact, Value: value}
		case gatewayv1.PathMatchPathPrefix:
			if value != "/" {
				rm.Path = &descriptor.PathMatch{Type: descriptor.PathMatchPathPrefix, Value: value}
			}
		default:
			return rm, false
		}
	}
	if m.Method != nil {
		rm.Method = string(*m.Method)
	}
	for _, h := range m.Headers {
		typ := descriptor.HeaderMatchExact
		if h.Type != nil && *h.Type == gatewayv1.HeaderMatchRegularExpression {
			typ = descriptor.HeaderMatchRegularExpression
		}
		rm.Headers = append(rm.Headers, descriptor.RouteHeaderMatch{Type: typ, Name: string(h.Name), Value: h.Value})
	}
	return rm, true
}

func containsRouteMatch(list []descriptor.RouteMatch, m descriptor.RouteMatch) bool {
	for _, e := range list {
		if reflect.DeepEqual(e, m) {
			return true
		}
	}
	return false
}
