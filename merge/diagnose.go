package merge

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/rlpkit/rlpkit/policy"
)

// Diagnose returns the warnings of set: every reason a valid HTTPRoute does not attach
// through one of its parentRefs to a Gateway; every valid RateLimitPolicy whose target is
// missing or invalid, is taken by an older policy, or is a Gateway or HTTPRoute that no
// route is attached through; and, when there are policies but no valid Gateway, one warning
// saying so. Objects with validation problems are not diagnosed (their problems are
// errors). The warnings are sorted by where their fields were read, then by object, field
// and message, so the same objects in any order give the same warnings. Compile returns
// them as Result.Warnings.
//
// Each Warning names where its object was read, the object, the field path, the reason and
// what to do: a parentRef whose Gateway is not among the inputs or is invalid (with the
// closest names, see Candidates), a sectionName that names no listener, a port no selected
// listener listens on, and for each listener that refuses the route why: a protocol other
// than HTTP and HTTPS, allowedRoutes namespaces (Same, Selector) that exclude the route's
// namespace, allowedRoutes kinds without HTTPRoute, hostnames that do not intersect; a
// policy whose target is not among the inputs (did you mean...?), is invalid, is taken by an
// older policy, or has no route attached through it; and policies without any valid Gateway.
func Diagnose(set *policy.Set) []Warning {
	return diagnose(set, nil)
}

// diagnose is Diagnose with the policies Compile rejected (their statuses say why, so
// they get no warning).
func diagnose(set *policy.Set, rejected map[*policy.RateLimitPolicy]string) []Warning {
	valid := validObjects(set)
	d := &diagnosis{set: set, valid: valid, topo: newTopology(valid), attached: map[key]bool{}}
	for _, gw := range valid.Gateways {
		d.gateways = append(d.gateways, key{gw.Namespace, gw.Name})
	}
	for _, r := range valid.HTTPRoutes {
		d.routes = append(d.routes, key{r.Namespace, r.Name})
	}
	for _, r := range valid.HTTPRoutes {
		d.route(r)
	}
	d.policies(newStatusTracker(set, valid, rejected))
	d.noGateway()
	slices.SortFunc(d.out, compareWarnings)
	return slices.CompactFunc(d.out, func(a, b Warning) bool { return a == b })
}

// diagnosis accumulates the warnings of one set.
type diagnosis struct {
	set, valid       *policy.Set
	topo             topo
	gateways, routes []key        // the valid ones
	attached         map[key]bool // Gateways and HTTPRoutes with an attachment
	out              []Warning
}

func (d *diagnosis) warn(kind string, k key, field, format string, a ...any) {
	obj := policy.ObjectKey{Kind: kind, Namespace: k.ns, Name: k.name}
	src, _ := d.set.FieldSource(obj, field)
	d.out = append(d.out, Warning{Source: src, Object: obj.String(), Field: field, Message: fmt.Sprintf(format, a...)})
}

// route diagnoses the parentRefs of one valid route, and notes what it attaches to.
func (d *diagnosis) route(r *gatewayv1.HTTPRoute) {
	rk := key{r.Namespace, r.Name}
	for _, a := range d.topo.attach(r) {
		d.attached[rk] = true
		d.attached[key{a.Gateway.Namespace, a.Gateway.Name}] = true
	}
	// Validation requires parentRefs. One naming another kind (a Service, for a mesh) is not
	// for a Gateway and is left alone.
	for i, ref := range r.Spec.ParentRefs {
		if refersToGateway(ref) {
			d.parentRef(r, rk, i, ref)
		}
	}
}

// parentRef says why route r does not attach through its parentRef i, if it does not.
func (d *diagnosis) parentRef(r *gatewayv1.HTTPRoute, rk key, i int, ref gatewayv1.ParentReference) {
	path := fmt.Sprintf("spec.parentRefs[%d]", i)
	gk := parentGateway(r, ref)
	gw := d.topo.gateway(gk)
	if gw == nil {
		if _, exists := d.set.Source(policy.ObjectKey{Kind: policy.KindGateway, Namespace: gk.ns, Name: gk.name}); exists {
			d.warn(policy.KindHTTPRoute, rk, path+".name", "Gateway %s is invalid, so the route attaches to it only once its errors are fixed (rlpkit validate lists them)", gk)
			return
		}
		msg := notFound(policy.KindGateway, gk, d.gateways)
		if ref.Namespace == nil && slices.ContainsFunc(d.gateways, func(k key) bool { return k.name == gk.name }) {
			msg += fmt.Sprintf("; a parentRef without namespace names a Gateway of the route's namespace %s: set %s.namespace", r.Namespace, path)
		}
		d.warn(policy.KindHTTPRoute, rk, path+".name", "%s", msg)
		return
	}
	var selected []gatewayv1.Listener
	for _, l := range gw.Spec.Listeners {
		if selects(ref, l) {
			selected = append(selected, l)
		}
	}
	if len(selected) == 0 {
		field, why := noListener(gw, ref)
		d.warn(policy.KindHTTPRoute, rk, path+"."+field, "not attached to Gateway %s: %s", gk, why)
		return
	}
	var reasons, hints []string
	hostnamesOnly := true
	for _, l := range selected {
		_, why := d.topo.admit(gw, l, r)
		if why == nil {
			return // attached through this parentRef
		}
		reasons = append(reasons, why.Msg)
		hostnamesOnly = hostnamesOnly && why.Hostnames
		hints = append(hints, why.Hint)
	}
	field := path
	if hostnamesOnly {
		field = "spec.hostnames"
	}
	slices.Sort(hints)
	d.warn(policy.KindHTTPRoute, rk, field, "not attached to Gateway %s: %s; %s", gk, strings.Join(reasons, "; "), strings.Join(slices.Compact(hints), ", or "))
}

// noListener says why a parentRef selects no listener of gw, naming the listeners there are,
// and which of its fields, sectionName or port, is wrong.
func noListener(gw *gatewayv1.Gateway, ref gatewayv1.ParentReference) (field, why string) {
	var names, ports []string
	for _, l := range gw.Spec.Listeners {
		names = append(names, string(l.Name))
		if ref.SectionName == nil || *ref.SectionName == l.Name {
			ports = append(ports, strconv.Itoa(int(l.Port)))
		}
	}
	slices.Sort(ports)
	ports = slices.Compact(ports)
	switch {
	case ref.SectionName != nil && len(ports) == 0:
		return "sectionName", fmt.Sprintf("it has no listener named %s; set sectionName to one of %s", *ref.SectionName, strings.Join(names, ", "))
	case ref.SectionName != nil:
		return "port", fmt.Sprintf("listener %s listens on port %s, not %d; set port to %s or leave it out", *ref.SectionName, strings.Join(ports, " and "), *ref.Port, strings.Join(ports, " or "))
	}
	return "port", fmt.Sprintf("no listener listens on port %d; set port to one of %s or leave it out", *ref.Port, strings.Join(ports, ", "))
}

// policies diagnoses the valid policies: target missing or invalid, conflicts, and targets
// no route is attached through.
func (d *diagnosis) policies(st *statusTracker) {
	for _, p := range d.set.Policies {
		if len(d.set.Problems(policy.PolicyKey(p))) > 0 {
			continue // an error already
		}
		pk := key{p.Namespace, p.Name}
		t := targetOf(p)
		tk := key{t.Namespace, t.Name}
		field := "spec.targetRef"
		switch acc := st.accepted[p]; acc.reason {
		case policy.ReasonTargetNotFound:
			if _, exists := d.set.Source(t); exists {
				d.warn(policy.KindRateLimitPolicy, pk, field, "%s is invalid, so the policy applies to no request until its errors are fixed (rlpkit validate lists them)", t)
				continue
			}
			keys := d.routes
			if t.Kind == policy.KindGateway {
				keys = d.gateways
			}
			msg := notFound(t.Kind, tk, keys)
			if slices.ContainsFunc(keys, func(k key) bool { return k.name == tk.name && k.ns != tk.ns }) {
				msg += fmt.Sprintf("; a policy targets only objects of its own namespace %s: create it in the namespace of its target", p.Namespace)
			}
			d.warn(policy.KindRateLimitPolicy, pk, field, "%s", msg)
		case policy.ReasonConflicted:
			d.warn(policy.KindRateLimitPolicy, pk, field, "not used: %s; merge the two policies or delete one", acc.message)
		case policy.ReasonAccepted:
			if d.attached[tk] {
				continue
			}
			if t.Kind == policy.KindGateway {
				d.warn(policy.KindRateLimitPolicy, pk, field, "no HTTPRoute is attached to %s, so the policy applies to no request; attach an HTTPRoute to it (spec.parentRefs)", t)
			} else {
				d.warn(policy.KindRateLimitPolicy, pk, field, "%s is not attached to any Gateway, so the policy applies to no request; see the warnings of the route", t)
			}
		}
	}
}

// noGateway warns once when there are policies but no valid Gateway, naming the policies and
// the Gateways the routes name.
func (d *diagnosis) noGateway() {
	if len(d.valid.Gateways) > 0 || len(d.set.Policies) == 0 {
		return
	}
	var policies, named []string
	for _, p := range d.set.Policies {
		policies = append(policies, nsName(&p.ObjectMeta))
	}
	for _, r := range d.valid.HTTPRoutes {
		for _, ref := range r.Spec.ParentRefs {
			if !refersToGateway(ref) {
				continue
			}
			named = append(named, parentGateway(r, ref).String())
		}
	}
	slices.Sort(policies)
	slices.Sort(named)
	what := "add the Gateway manifest (gateway.networking.k8s.io/v1) the policies' targets attach to"
	if named = slices.Compact(named); len(named) > 0 {
		what = "add the manifest of Gateway " + strings.Join(named, ", ") + " (named by the HTTPRoutes' parentRefs)"
	}
	subject := "RateLimitPolicy " + policies[0] + " applies"
	if len(policies) > 1 {
		subject = "RateLimitPolicies " + strings.Join(policies, ", ") + " apply"
	}
	d.out = append(d.out, Warning{Message: fmt.Sprintf("no valid Gateway in the inputs, so nothing is compiled and %s to no request; %s to the inputs", subject, what)})
}
