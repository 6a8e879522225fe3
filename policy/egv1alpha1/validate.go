package egv1alpha1

import (
	"fmt"
	"regexp"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Gateway API's name patterns, which the CRD applies to target references.
var (
	groupRE   = regexp.MustCompile(`^$|^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	kindRE    = regexp.MustCompile(`^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$`)
	sectionRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
)

// The kinds the CRD lets a policy target, and those mergeType and admissionControl allow.
var (
	targetKinds           = []string{"Gateway", "ListenerSet", "HTTPRoute", "GRPCRoute", "UDPRoute", "TCPRoute", "TLSRoute"}
	routeKinds            = []string{"HTTPRoute", "GRPCRoute", "UDPRoute", "TCPRoute", "TLSRoute"}
	admissionControlKinds = []string{"Gateway", "ListenerSet", "HTTPRoute", "GRPCRoute"}
	methods               = []string{"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"}
)

// ValidateBackendTrafficPolicy checks a policy as the API server does with Envoy Gateway
// v1.9's CRD: the schema of its targets, merge type and rate limits, and every CEL rule of
// the spec. The fields that do not concern rate limits are checked only where a CEL rule of
// the spec reads them. It returns every problem, with field paths.
func ValidateBackendTrafficPolicy(p *BackendTrafficPolicy) field.ErrorList {
	spec := field.NewPath("spec")
	s := &p.Spec
	var errs field.ErrorList
	if !(s.TargetRef != nil && len(s.TargetRefs) == 0 || s.TargetRef == nil && len(s.TargetRefs) > 0 || len(s.TargetSelectors) > 0) {
		errs = append(errs, field.Invalid(spec, "object", "either targetRef or targetRefs must be used"))
	}
	if s.TargetRef != nil {
		errs = append(errs, validateTargetRef(*s.TargetRef, spec.Child("targetRef"), "targetRef")...)
	}
	for i, r := range s.TargetRefs {
		errs = append(errs, validateTargetRef(r, spec.Child("targetRefs").Index(i), "targetRefs[*]")...)
	}
	for i := range s.TargetSelectors {
		errs = append(errs, validateSelector(&s.TargetSelectors[i], spec.Child("targetSelectors").Index(i))...)
	}
	if s.MergeType != nil {
		if *s.MergeType == Replace {
			errs = append(errs, field.Invalid(spec.Child("mergeType"), string(*s.MergeType), "Replace is not a valid MergeType for BackendTrafficPolicySpec"))
		}
		if !s.targetsOnly(routeKinds) {
			errs = append(errs, field.Invalid(spec.Child("mergeType"), string(*s.MergeType), "mergeType can only be used with xRoute targets"))
		}
	}
	errs = append(errs, validateUnread(s, spec)...)
	if s.RateLimit != nil {
		errs = append(errs, validateRateLimit(s.RateLimit, spec.Child("rateLimit"))...)
	}
	return errs
}

// targetsOnly reports whether every target reference and selector is of one of kinds.
func (s *BackendTrafficPolicySpec) targetsOnly(kinds []string) bool {
	if s.TargetRef != nil && !slices.Contains(kinds, string(s.TargetRef.Kind)) {
		return false
	}
	for _, r := range s.TargetRefs {
		if !slices.Contains(kinds, string(r.Kind)) {
			return false
		}
	}
	for _, sel := range s.TargetSelectors {
		if !slices.Contains(kinds, string(sel.Kind)) {
			return false
		}
	}
	return true
}

// validateTargetRef checks a target reference; name is how the CRD's rules call it.
func validateTargetRef(r gatewayv1.LocalPolicyTargetReferenceWithSectionName, p *field.Path, name string) field.ErrorList {
	var errs field.ErrorList
	if r.Group != gatewayv1.GroupName {
		errs = append(errs, field.Invalid(p.Child("group"), string(r.Group), "this policy can only have a "+name+".group of gateway.networking.k8s.io"))
	}
	errs = append(errs, checkString(p.Child("kind"), string(r.Kind), 1, 63, kindRE, "must be a kind: a letter, then letters, digits and '-', ending with a letter or digit")...)
	if !slices.Contains(targetKinds, string(r.Kind)) {
		errs = append(errs, field.Invalid(p.Child("kind"), string(r.Kind), "this policy can only have a "+name+".kind of Gateway/ListenerSet/HTTPRoute/GRPCRoute/TCPRoute/UDPRoute/TLSRoute"))
	}
	errs = append(errs, checkString(p.Child("name"), string(r.Name), 1, 253, nil, "")...)
	if r.SectionName != nil {
		errs = append(errs, checkString(p.Child("sectionName"), string(*r.SectionName), 1, 253, sectionRE,
			"must be a listener name of a Gateway or a rule name of a route: lower-case alphanumerics, '-' and '.', each dot-separated part starting and ending with an alphanumeric")...)
	}
	return errs
}

func validateSelector(s *TargetSelector, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.Group != nil {
		errs = append(errs, checkString(p.Child("group"), string(*s.Group), 0, 253, groupRE, "must be an API group: lower-case DNS labels separated by dots")...)
		if *s.Group != gatewayv1.GroupName {
			errs = append(errs, field.Invalid(p.Child("group"), string(*s.Group), "group must be gateway.networking.k8s.io"))
		}
	}
	errs = append(errs, checkString(p.Child("kind"), string(s.Kind), 1, 63, kindRE, "must be a kind: a letter, then letters, digits and '-', ending with a letter or digit")...)
	if ns := s.Namespaces; ns != nil {
		from := []string{string(TargetNamespaceFromSame), string(TargetNamespaceFromAll), string(TargetNamespaceFromSelector)}
		if !slices.Contains(from, string(ns.From)) {
			errs = append(errs, field.NotSupported(p.Child("namespaces", "from"), ns.From, from))
		}
		if ns.From == TargetNamespaceFromSelector && ns.Selector == nil {
			errs = append(errs, field.Invalid(p.Child("namespaces"), "object", "selector must be specified when from is Selector"))
		}
	}
	errs = append(errs, validateExpressions(s.MatchExpressions, p.Child("matchExpressions"))...)
	if ns := s.Namespaces; ns != nil && ns.Selector != nil {
		errs = append(errs, validateExpressions(ns.Selector.MatchExpressions, p.Child("namespaces", "selector", "matchExpressions"))...)
	}
	return errs
}

// validateExpressions checks the required fields of label selector requirements.
func validateExpressions(exprs []metav1.LabelSelectorRequirement, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, e := range exprs {
		if e.Key == "" {
			errs = append(errs, field.Required(p.Index(i).Child("key"), ""))
		}
		if e.Operator == "" {
			errs = append(errs, field.Required(p.Index(i).Child("operator"), ""))
		}
	}
	return errs
}

// validateUnread applies the spec's CEL rules that read fields rlpkit keeps as written.
func validateUnread(s *BackendTrafficPolicySpec, spec *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.Compression.IsSet() && s.Compressor.IsSet() {
		errs = append(errs, field.Invalid(spec, "object", "either compression or compressor can be set, not both"))
	}
	if up, ok := s.HTTPUpgrade.Value().([]any); s.RequestBuffer.IsSet() && s.HTTPUpgrade.IsSet() && (!ok || len(up) > 0) {
		errs = append(errs, field.Invalid(spec, "object", "requestBuffer cannot be used together with httpUpgrade"))
	}
	if s.AdmissionControl.IsSet() && !s.targetsOnly(admissionControlKinds) {
		errs = append(errs, field.Invalid(spec.Child("admissionControl"), "object", "admissionControl can only be used with HTTPRoute, GRPCRoute, Gateway, or ListenerSet targets"))
	}
	if predictive(s.Connection.Value()) {
		lb, _ := s.LoadBalancer.Value().(map[string]any)
		if t, _ := lb["type"].(string); t != "Random" && t != "RoundRobin" {
			errs = append(errs, field.Invalid(spec, "object", "predictivePercent in preconnect policy only works with RoundRobin or Random load balancers"))
		}
	}
	return errs
}

// predictive reports whether a connection setting has preconnect.predictivePercent.
func predictive(connection any) bool {
	c, _ := connection.(map[string]any)
	pre, _ := c["preconnect"].(map[string]any)
	_, ok := pre["predictivePercent"]
	return ok
}

// checkString checks a string's length and, when re is set, its pattern.
func checkString(p *field.Path, s string, minLen, maxLen int, re *regexp.Regexp, what string) field.ErrorList {
	switch {
	case len(s) < minLen && s == "":
		return field.ErrorList{field.Required(p, "")}
	case len(s) < minLen:
		return field.ErrorList{field.Invalid(p, s, fmt.Sprintf("must be at least %d characters", minLen))}
	case len(s) > maxLen:
		return field.ErrorList{field.TooLong(p, "", maxLen)}
	case re != nil && !re.MatchString(s):
		return field.ErrorList{field.Invalid(p, s, what)}
	}
	return nil
}

// enum returns a NotSupported error when v is not one of values.
func enum[T ~string](p *field.Path, v T, values ...T) field.ErrorList {
	if slices.Contains(values, v) {
		return nil
	}
	names := make([]string, len(values))
	for i, x := range values {
		names[i] = string(x)
	}
	return field.ErrorList{field.NotSupported(p, string(v), names)}
}
