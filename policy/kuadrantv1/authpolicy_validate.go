package kuadrantv1

import (
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// ValidateAuthPolicy checks what the AuthPolicy CRD checks of the fields rate limiting
// reads: the target reference, the strategy, and that top-level rules, defaults and
// overrides are not mixed. The rules are Authorino's and are not checked.
func ValidateAuthPolicy(p *AuthPolicy) field.ErrorList {
	var errs field.ErrorList
	spec := field.NewPath("spec")
	ref := p.Spec.TargetRef
	tr := spec.Child("targetRef")
	if ref.Group != gatewayv1.GroupName {
		errs = append(errs, field.NotSupported(tr.Child("group"), ref.Group, []string{gatewayv1.GroupName}))
	}
	if !slices.Contains(targetKinds, string(ref.Kind)) {
		errs = append(errs, field.NotSupported(tr.Child("kind"), ref.Kind, targetKinds))
	}
	if ref.Name == "" {
		errs = append(errs, field.Required(tr.Child("name"), "the name of the target, in the policy's namespace"))
	}
	if ref.SectionName != nil {
		s := string(*ref.SectionName)
		if len(s) > 253 || !sectionNameRE.MatchString(s) {
			errs = append(errs, field.Invalid(tr.Child("sectionName"), s, "must be a listener name of a Gateway or a rule name of a route"))
		}
	}
	implicit := p.Spec.AuthScheme != nil || p.Spec.When != nil || p.Spec.NamedPatterns != nil
	switch {
	case p.Spec.Defaults != nil && implicit:
		errs = append(errs, field.Invalid(spec, "object", "Implicit and explicit defaults are mutually exclusive: move rules, patterns and when into spec.defaults"))
	case p.Spec.Defaults != nil && p.Spec.Overrides != nil:
		errs = append(errs, field.Invalid(spec, "object", "Overrides and explicit defaults are mutually exclusive: keep one of spec.defaults and spec.overrides"))
	case p.Spec.Overrides != nil && implicit:
		errs = append(errs, field.Invalid(spec, "object", "Overrides and implicit defaults are mutually exclusive: move rules, patterns and when into spec.overrides"))
	}
	for name, m := range map[string]*MergeableAuthPolicySpec{"defaults": p.Spec.Defaults, "overrides": p.Spec.Overrides} {
		if m == nil {
			continue
		}
		switch m.Strategy {
		case "", StrategyAtomic, StrategyMerge:
		default:
			errs = append(errs, field.NotSupported(spec.Child(name, "strategy"), m.Strategy, []string{StrategyAtomic, StrategyMerge}))
		}
	}
	return errs
}
