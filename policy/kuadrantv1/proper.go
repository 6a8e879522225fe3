package kuadrantv1

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateProper checks a block of limits and when (bare, defaults or overrides) at p as
// ValidateRateLimitPolicy does: predicates, counters, windows, and at least one limit
// (a Required error at p.limits). Package kuadrantv1alpha1 checks a TokenRateLimitPolicy's
// body with it.
func ValidateProper(s *RateLimitPolicySpecProper, p *field.Path) field.ErrorList {
	return validateProper(s, p)
}

// ValidateSectionName checks a targetRef's sectionName at p with Gateway API's
// SectionName pattern, which the CRDs apply; nil when it is valid.
func ValidateSectionName(s string, p *field.Path) *field.Error {
	if len(s) > 253 || !sectionNameRE.MatchString(s) {
		return field.Invalid(p, s, "must be a listener name of a Gateway or a rule name of a route: lower-case alphanumerics, '-' and '.', each dot-separated part starting and ending with an alphanumeric, at most 253 characters")
	}
	return nil
}
