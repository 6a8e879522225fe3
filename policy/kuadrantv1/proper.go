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
