package kuadrantv1

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateAuthPolicy checks what the AuthPolicy CRD checks of the fields rate limiting
// reads: the target reference, the strategy, that top-level rules, defaults and overrides
// are not mixed, that the block in use has at least one rule, and that its when holds
// predicates. The rules themselves are Authorino's and are not checked.
func ValidateAuthPolicy(p *AuthPolicy) field.ErrorList {
	spec := field.NewPath("spec")
	errs := ValidateTargetRef(p.Spec.TargetRef, spec.Child("targetRef"), TargetRefRules{Kinds: targetKinds})
	implicit := p.Spec.AuthScheme != nil || p.Spec.When != nil || p.Spec.NamedPatterns != nil
	if e := ValidateBlocks(spec, implicit, p.Spec.Defaults != nil, p.Spec.Overrides != nil, "rules, patterns and when"); e != nil {
		errs = append(errs, e)
	}
	blocks := []struct {
		name string
		m    *MergeableAuthPolicySpec
	}{{"defaults", p.Spec.Defaults}, {"overrides", p.Spec.Overrides}}
	explicit := false
	for _, b := range blocks {
		if b.m == nil {
			continue
		}
		explicit = true
		bp := spec.Child(b.name)
		switch b.m.Strategy {
		case "", StrategyAtomic, StrategyMerge:
		default:
			errs = append(errs, field.NotSupported(bp.Child("strategy"), b.m.Strategy, []string{StrategyAtomic, StrategyMerge}))
		}
		errs = append(errs, validateAuthProper(&b.m.AuthPolicySpecProper, bp)...)
	}
	if !explicit {
		errs = append(errs, validateAuthProper(&p.Spec.AuthPolicySpecProper, spec)...)
	}
	return errs
}

// validateAuthProper checks one block of rules at p: its when, and at least one rule
// (the CRD's "At least one spec.rules must be defined").
func validateAuthProper(s *AuthPolicySpecProper, p *field.Path) field.ErrorList {
	errs := validateWhen(s.When, p.Child("when"))
	if !s.hasAuthRules() {
		errs = append(errs, field.Required(p.Child("rules"), "at least one rule: an authentication, metadata, authorization, response or callbacks entry"))
	}
	return errs
}
