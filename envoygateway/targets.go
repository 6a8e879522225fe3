package envoygateway

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policy/egv1alpha1"
)

// target is one target of a policy: a kind, namespace/name and, for a rule or a listener,
// a section.
type target struct {
	kind, namespace, name string
	section               *string
}

func (t target) key() string { return t.namespace + "/" + t.name }

// explicitTargets returns a policy's targetRef or targetRefs, in its namespace.
func explicitTargets(p *egv1alpha1.BackendTrafficPolicy) []target {
	var out []target
	for _, r := range p.Spec.Targets() {
		t := target{kind: string(r.Kind), namespace: p.Namespace, name: string(r.Name)}
		if r.SectionName != nil {
			s := string(*r.SectionName)
			t.section = &s
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// namespaceSelected reports whether a targetSelector's namespaces include the policy's own,
// whose labels are given.
func namespaceSelected(ns *egv1alpha1.TargetSelectorNamespaces, own labels.Set) bool {
	if ns == nil || ns.From != egv1alpha1.TargetNamespaceFromSelector {
		return true
	}
	if ns.Selector == nil {
		return false
	}
	sel, err := metav1.LabelSelectorAsSelector(ns.Selector)
	return err == nil && sel.Matches(own)
}

// selectable is an object a targetSelector may select.
type selectable interface {
	metav1.Object
}

// resolveTargets returns the targets of a policy among candidates of one kind: those its
// targetSelectors select (oldest first), then its explicit targets not among them. A
// selector considers objects of its own namespace only: rlpkit does not read the
// ReferenceGrants Envoy Gateway asks for across namespaces.
func resolveTargets[T selectable](p *egv1alpha1.BackendTrafficPolicy, kind string, candidates []T, nsLabels func(string) labels.Set) []target {
	return withExplicit(p, selectTargets(p, kind, candidates, nsLabels))
}

// routeTargets is resolveTargets over routes of both kinds: the HTTPRoutes, then the
// GRPCRoutes its targetSelectors select, then its explicit targets.
func routeTargets(p *egv1alpha1.BackendTrafficPolicy, routes []*xroute, nsLabels func(string) labels.Set) []target {
	var out []target
	for _, kind := range []string{policy.KindHTTPRoute, policy.KindGRPCRoute} {
		of := slices.DeleteFunc(slices.Clone(routes), func(r *xroute) bool { return r.kind != kind })
		out = append(out, selectTargets(p, kind, of, nsLabels)...)
	}
	return withExplicit(p, out)
}

// selectTargets returns the objects of one kind among candidates that a policy's
// targetSelectors select, oldest first.
func selectTargets[T selectable](p *egv1alpha1.BackendTrafficPolicy, kind string, candidates []T, nsLabels func(string) labels.Set) []target {
	var selected []T
	for _, sel := range p.Spec.TargetSelectors {
		if string(sel.Kind) != kind || sel.Group != nil && string(*sel.Group) != gatewayv1.GroupName || !namespaceSelected(sel.Namespaces, nsLabels(p.Namespace)) {
			continue
		}
		ls, err := metav1.LabelSelectorAsSelector(&metav1.LabelSelector{MatchLabels: sel.MatchLabels, MatchExpressions: sel.MatchExpressions})
		if err != nil {
			continue
		}
		for _, obj := range candidates {
			if obj.GetNamespace() != p.Namespace || !ls.Matches(labels.Set(obj.GetLabels())) {
				continue
			}
			if !slices.ContainsFunc(selected, func(o T) bool { return o.GetNamespace() == obj.GetNamespace() && o.GetName() == obj.GetName() }) {
				selected = append(selected, obj)
			}
		}
	}
	slices.SortStableFunc(selected, func(a, b T) int { return byAge(a, b) })
	var out []target
	for _, obj := range selected {
		out = append(out, target{kind: kind, namespace: obj.GetNamespace(), name: obj.GetName()})
	}
	return out
}

// withExplicit appends to selected targets a policy's explicit targets not among them.
func withExplicit(p *egv1alpha1.BackendTrafficPolicy, out []target) []target {
	for _, t := range explicitTargets(p) {
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}
