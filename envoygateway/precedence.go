package envoygateway

import (
	"fmt"
	"slices"
	"strings"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policy/egv1alpha1"
	"github.com/rlpkit/rlpkit/policyapi"
	"github.com/rlpkit/rlpkit/topology"
)

// pol is a policy being compiled: its own rate limits and the error Envoy Gateway finds in
// them.
type pol struct {
	p    *egv1alpha1.BackendTrafficPolicy
	name string
	rl   *RateLimit
	err  error
}

// precedence gives every xDS route the settings of the most specific policy that covers
// it, in Envoy Gateway's order: policies on route rules, on routes, on listeners, on
// Gateways, each oldest first; and records each policy's statuses.
type precedence struct {
	m        *model
	policies []*pol
	st       statuses
	// attached records the targets a policy took: "route ns/name", "rule ns/name/rule",
	// "gateway ns/name", "listener ns/name/listener".
	attached map[string]bool
	// parents is the first policy of each Gateway and listener, for merging.
	parents map[string]*pol
	// overrides records the routes and listeners whose policies replace a Gateway's or
	// listener's policy on them; merged the routes whose policies merged into it.
	overrides, merged *scopeGraph
}

// targetErr is why a policy cannot take a target: Conflicted or TargetNotFound.
type targetErr struct{ reason, message string }

func (c *precedence) run() {
	c.attached = map[string]bool{}
	c.parents = map[string]*pol{}
	c.overrides, c.merged = newScopeGraph(), newScopeGraph()
	c.buildParents()
	isRoute := func(t target) bool { return t.kind != "Gateway" }
	for _, p := range c.policies { // route rules
		for _, t := range explicitTargets(p.p) {
			if isRoute(t) && t.section != nil {
				c.route(p, t)
			}
		}
	}
	for _, p := range c.policies { // routes
		for _, t := range routeTargets(p.p, c.m.routes, c.m.topo.NamespaceLabels) {
			if isRoute(t) && t.section == nil {
				c.route(p, t)
			}
		}
	}
	for _, p := range c.policies { // listeners
		for _, t := range explicitTargets(p.p) {
			if t.kind == "Gateway" && t.section != nil {
				c.gateway(p, t)
			}
		}
	}
	for _, p := range c.policies { // Gateways
		for _, t := range resolveTargets(p.p, "Gateway", c.m.topo.Gateways(), c.m.topo.NamespaceLabels) {
			if t.kind == "Gateway" && t.section == nil {
				c.gateway(p, t)
			}
		}
	}
}

// buildParents notes the first policy of each Gateway and listener.
func (c *precedence) buildParents() {
	for _, p := range c.policies {
		for _, t := range resolveTargets(p.p, "Gateway", c.m.topo.Gateways(), c.m.topo.NamespaceLabels) {
			gw := c.m.topo.Gateway(topology.Key{Namespace: t.namespace, Name: t.name})
			if t.kind != "Gateway" || gw == nil || t.section != nil && !hasListener(gw, *t.section) {
				continue
			}
			k := t.key()
			if t.section != nil {
				k += "/" + *t.section
			}
			if c.parents[k] == nil {
				c.parents[k] = p
			}
		}
	}
}

func hasListener(gw *gatewayv1.Gateway, name string) bool {
	return slices.ContainsFunc(gw.Spec.Listeners, func(l gatewayv1.Listener) bool { return string(l.Name) == name })
}

// gateway applies policy p to the routes of Gateway (or listener) target t.
func (c *precedence) gateway(p *pol, t target) {
	gw := c.m.topo.Gateway(topology.Key{Namespace: t.namespace, Name: t.name})
	if gw == nil {
		c.notFound(p, policy.KindGateway, t)
		return
	}
	ancestor := t.key()
	if t.section != nil {
		ancestor += "/" + *t.section
	}
	if e := c.takeGateway(gw, t); e != nil {
		c.st.fail(p.name, []string{ancestor}, e.reason, e.message)
		return
	}
	own := gatewayOrListener(ancestor)
	level := "gateway"
	if t.section != nil {
		level = "listener"
		c.overrides.add(own.resource(), own)
	}
	for _, l := range c.m.byName[t.key()].Listeners {
		if t.section == nil || l.Section == *t.section {
			c.apply(l.Routes, nil, p.rl, p.err, p.name, "", level)
		}
	}
	if p.err != nil {
		c.st.fail(p.name, []string{ancestor}, ReasonInvalid, conditionMessage(p.err))
	}
	c.st.accept(p.name, []string{ancestor})
	c.st.deprecated(p.p, p.name, []string{ancestor})
	merged := c.merged.direct(own)
	if msg := formatScopes(merged); msg != "" {
		c.st.setTrue(p.name, []string{ancestor}, ConditionMerged, ReasonMerged, "This policy is being merged by other backendTrafficPolicies for "+msg)
	}
	if msg := formatScopes(without(c.overrides.withDescendants(own), merged)); msg != "" {
		c.st.setTrue(p.name, []string{ancestor}, ConditionOverridden, ReasonOverridden, "This policy is being overridden by other backendTrafficPolicies for "+msg)
	}
}

// takeGateway checks a Gateway or listener target and takes it for its policy.
func (c *precedence) takeGateway(gw *gatewayv1.Gateway, t target) *targetErr {
	if t.section != nil && !hasListener(gw, *t.section) {
		return &targetErr{ReasonTargetNotFound, fmt.Sprintf("No section name %s found for Gateway %s", *t.section, t.key())}
	}
	if t.section == nil {
		if c.attached["gateway "+t.key()] {
			return &targetErr{ReasonConflicted, fmt.Sprintf("Unable to target Gateway %s, another BackendTrafficPolicy has already attached to it", t.name)}
		}
		c.attached["gateway "+t.key()] = true
		return nil
	}
	k := "listener " + t.key() + "/" + *t.section
	if c.attached[k] {
		return &targetErr{ReasonConflicted, fmt.Sprintf("Unable to target Listener %s/%s, another BackendTrafficPolicy has already attached to it", t.key(), *t.section)}
	}
	c.attached[k] = true
	return nil
}

// route applies policy p to the xDS routes of HTTPRoute or GRPCRoute (or rule) target t.
func (c *precedence) route(p *pol, t target) {
	if t.kind != policy.KindHTTPRoute && t.kind != policy.KindGRPCRoute {
		return // other route kinds are not read
	}
	i := slices.IndexFunc(c.m.routes, func(r *xroute) bool { return r.kind == t.kind && r.key() == t.key() })
	if i < 0 {
		c.notFound(p, t.kind, t)
		return
	}
	r := c.m.routes[i]
	var ancestors []string
	var refs []int
	for ri, ref := range r.parentRefs {
		if !topology.IsGatewayRef(ref) || c.m.topo.Gateway(r.parentGateway(ref)) == nil {
			continue
		}
		a := r.parentGateway(ref).String()
		if ref.SectionName != nil {
			a += "/" + string(*ref.SectionName)
		}
		ancestors = append(ancestors, a)
		refs = append(refs, ri)
		c.overrides.add(gatewayOrListener(a), routeScope(t))
	}
	if e := c.takeRoute(r, t); e != nil {
		c.st.fail(p.name, ancestors, e.reason, e.message)
		return
	}
	level := "route"
	if t.section != nil {
		level = "rule"
	}
	if p.p.Spec.MergeType == nil {
		c.apply(c.routesOf(r, t, nil), nil, p.rl, p.err, p.name, "", level)
		if p.err != nil {
			c.st.fail(p.name, ancestors, ReasonInvalid, conditionMessage(p.err))
		}
	} else {
		c.merge(p, r, t, refs, level)
	}
	c.st.accept(p.name, ancestors)
	c.st.deprecated(p.p, p.name, ancestors)
	if t.section == nil {
		if rules := c.attachedRules(t); len(rules) > 0 {
			c.st.setTrue(p.name, ancestors, ConditionOverridden, ReasonOverridden,
				fmt.Sprintf("This policy is being overridden by other backendTrafficPolicy for these route rules: %v", rules))
		}
	}
}

// attachedRules returns the sorted names of the rules of route t that policies took.
func (c *precedence) attachedRules(t target) []string {
	prefix := "rule " + t.kind + " " + t.key() + "/"
	var out []string
	for k := range c.attached {
		if rule, ok := strings.CutPrefix(k, prefix); ok {
			out = append(out, rule)
		}
	}
	slices.Sort(out)
	return out
}

// notFound fails policy p as TargetNotFound, with no ancestor, when its target t (a
// Gateway, an HTTPRoute or a GRPCRoute) is not a valid object of the inputs, the message naming every
// such target of p; a route of the inputs that attaches to no Gateway of them gets no
// status, as in Envoy Gateway.
func (c *precedence) notFound(p *pol, kind string, t target) {
	names := validNames(c.m.set, kind)
	if slices.Contains(names, t.key()) {
		return
	}
	msg := policyapi.NotFound(kind, t.key(), names)
	if _, exists := c.m.set.Source(policy.ObjectKey{Kind: kind, Namespace: t.namespace, Name: t.name}); exists {
		msg = fmt.Sprintf("%s %s is invalid", kind, t.key())
	}
	msg += "."
	if st := c.st.find(p.name, ""); st != nil && len(st.Conditions) > 0 {
		msg = st.Conditions[0].Message + " " + msg // each missing target of the policy
	}
	c.st.fail(p.name, []string{""}, ReasonTargetNotFound, msg)
}

// takeRoute checks a route or rule target and takes it for its policy.
func (c *precedence) takeRoute(r *xroute, t target) *targetErr {
	route := "route " + t.kind + " " + t.key()
	if t.section == nil {
		if c.attached[route] {
			return &targetErr{ReasonConflicted, fmt.Sprintf("Unable to target %s %s, another BackendTrafficPolicy has already attached to it", t.kind, t.name)}
		}
		c.attached[route] = true
		return nil
	}
	if *t.section == "" || !slices.Contains(r.ruleNames, *t.section) {
		return &targetErr{ReasonTargetNotFound, fmt.Sprintf("No section name %s found for %s %s", *t.section, t.kind, t.key())}
	}
	k := "rule " + t.kind + " " + t.key() + "/" + *t.section
	if c.attached[k] {
		return &targetErr{ReasonConflicted, fmt.Sprintf("Unable to target RouteRule %s/%s, another BackendTrafficPolicy has already attached to it", t.name, *t.section)}
	}
	c.attached[k] = true
	return nil
}

// routesOf returns the xDS routes of route r (of its rule t.section when set), on
// listener l or, when nil, on every listener.
func (c *precedence) routesOf(r *xroute, t target, l *Listener) []*Route {
	prefix := r.prefix()
	var out []*Route
	for _, g := range c.m.gateways {
		for _, gl := range g.Listeners {
			if l != nil && gl != l {
				continue
			}
			for _, rt := range gl.Routes {
				if strings.HasPrefix(rt.Name, prefix) && (t.section == nil || rt.RuleName == *t.section) {
					out = append(out, rt)
				}
			}
		}
	}
	return out
}

// merge applies a route policy with a merge type: on each listener its parentRefs attach
// to, merged into the listener's policy, else the Gateway's, else alone.
func (c *precedence) merge(p *pol, r *xroute, t target, refs []int, level string) {
	for _, ri := range refs {
		gw, lis := c.m.parentListeners(r, ri)
		gk := topology.KeyOf(gw).String()
		for _, li := range lis {
			name := string(gw.Spec.Listeners[li].Name)
			l := c.m.listener(gk, name)
			ancestor := gk + "/" + name
			parent, parentScope := c.parents[ancestor], scope{kind: scopeListener, key: ancestor}
			if parent == nil {
				parent, parentScope = c.parents[gk], scope{kind: scopeGateway, key: gk}
			}
			if parent == nil {
				c.apply(c.routesOf(r, t, l), nil, p.rl, p.err, p.name, "", level)
				if p.err != nil {
					c.st.fail(p.name, []string{ancestor}, ReasonInvalid, conditionMessage(p.err))
				}
				continue
			}
			rl, err := mergedRateLimit(c.m.set, parent, p)
			c.apply(c.routesOf(r, t, l), nil, rl, err, p.name, parent.name, level)
			if err != nil {
				c.st.fail(p.name, []string{ancestor}, ReasonInvalid, conditionMessage(err))
				continue
			}
			c.merged.add(parentScope, routeScope(t))
			c.st.setTrue(p.name, []string{ancestor}, ConditionMerged, ReasonMerged, "Merged with policy "+parent.name)
		}
	}
}

// mergedRateLimit returns the rate limits of route policy p merged into its parent's, and
// the error of the merged policy: its responseOverride is the route's when it sets one, else
// the parent's, each resolved in its own policy's namespace.
func mergedRateLimit(set *policy.Set, parent, p *pol) (*RateLimit, error) {
	mt := *p.p.Spec.MergeType
	if mt != egv1alpha1.StrategicMerge && mt != egv1alpha1.JSONMerge {
		return nil, fmt.Errorf("error merging policies: unsupported merge type: %s", mt)
	}
	owner := parent.p
	if responseOverrideSet(p.p) {
		owner = p.p
	}
	spec := mergeSpecs(parent.p.Spec.RateLimit, p.p.Spec.RateLimit)
	rl, err := buildRateLimit(p.name, spec)
	if err != nil {
		err = fmt.Errorf("RateLimit: %w", err)
	}
	if err := policyErr(set, err, mergeOther(otherFieldsOf(parent.p), otherFieldsOf(p.p)), owner); err != nil {
		return nil, err
	}
	switch {
	case p.p.Spec.RateLimit != nil && parent.p.Spec.RateLimit != nil && parent.rl != nil && p.rl != nil:
		return mergeRateLimits(parent.rl, p.rl, mt)
	case p.p.Spec.RateLimit == nil && parent.rl != nil:
		return parent.rl, nil
	}
	return rl, nil
}

// apply gives routes that no more specific policy set the rate limits rl of policy name
// (merged into parent), or, when err is set, a 500 direct response.
func (c *precedence) apply(routes []*Route, _ *Listener, rl *RateLimit, err error, name, parent, level string) {
	for _, rt := range routes {
		if rt.traffic {
			continue
		}
		if err != nil {
			rt.DirectResponse = 500
			continue
		}
		rt.traffic = true
		rt.RateLimit, rt.Policy, rt.Parent, rt.Level = rl, name, parent, level
	}
}

// validNames returns the "namespace/name" of the valid objects of kind in set.
func validNames(set *policy.Set, kind string) []string {
	if kind != policy.KindGRPCRoute {
		return policyapi.ValidNames(set, kind)
	}
	var out []string
	for _, r := range set.GRPCRoutes {
		if set.Problems(policy.ObjectKey{Kind: kind, Namespace: r.Namespace, Name: r.Name}) == nil {
			out = append(out, r.Namespace+"/"+r.Name)
		}
	}
	return out
}
