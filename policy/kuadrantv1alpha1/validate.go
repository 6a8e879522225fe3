package kuadrantv1alpha1

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/rlpkit/rlpkit/policy/kuadrantv1"
)

// The messages of the CRD's rules, as kuadrant-operator v1.5.2 writes them.
const (
	msgGroup             = "Invalid targetRef.group. The only supported value is 'gateway.networking.k8s.io'"
	msgKind              = "Invalid targetRef.kind. The only supported values are 'HTTPRoute' and 'Gateway'"
	msgImplicitDefaults  = "Implicit and explicit defaults are mutually exclusive"
	msgDefaultsOverrides = "Overrides and explicit defaults are mutually exclusive"
	msgImplicitOverrides = "Overrides and implicit defaults are mutually exclusive"
	msgLimits            = "At least one spec.limits must be defined"
	msgOverridesLimits   = "At least one spec.overrides.limits must be defined"
	msgDefaultsLimits    = "At least one spec.defaults.limits must be defined"
)

// targetRules are the CRD's targets and messages for spec.targetRef.
var targetRules = kuadrantv1.TargetRefRules{Kinds: []string{"HTTPRoute", "Gateway"}, GroupMessage: msgGroup, KindMessage: msgKind}

// ValidateTokenRateLimitPolicy checks a policy as its CRD does, with the CRD's messages,
// and its limits and predicates as package kuadrantv1 checks a RateLimitPolicy's. It
// returns every problem, with field paths.
func ValidateTokenRateLimitPolicy(p *TokenRateLimitPolicy) field.ErrorList {
	spec := field.NewPath("spec")
	errs := kuadrantv1.ValidateTargetRef(p.Spec.TargetRef, spec.Child("targetRef"), targetRules)

	s := &p.Spec
	implicit := s.Limits != nil
	if s.Defaults != nil && implicit {
		errs = append(errs, field.Invalid(spec, "object", msgImplicitDefaults))
	}
	if s.Defaults != nil && s.Overrides != nil {
		errs = append(errs, field.Invalid(spec, "object", msgDefaultsOverrides))
	}
	if s.Overrides != nil && implicit {
		errs = append(errs, field.Invalid(spec, "object", msgImplicitOverrides))
	}
	switch {
	case s.Overrides == nil && s.Defaults == nil:
		errs = append(errs, validateProper(&s.RateLimitPolicySpecProper, spec, msgLimits)...)
	default:
		for _, b := range []struct {
			block *MergeableTokenRateLimitPolicySpec
			name  string
			msg   string
		}{{s.Defaults, "defaults", msgDefaultsLimits}, {s.Overrides, "overrides", msgOverridesLimits}} {
			if b.block == nil {
				continue
			}
			bp := spec.Child(b.name)
			switch b.block.Strategy {
			case "", kuadrantv1.StrategyAtomic, kuadrantv1.StrategyMerge:
			default:
				errs = append(errs, field.NotSupported(bp.Child("strategy"), b.block.Strategy, []string{kuadrantv1.StrategyAtomic, kuadrantv1.StrategyMerge}))
			}
			errs = append(errs, validateProper(&b.block.RateLimitPolicySpecProper, bp, b.msg)...)
		}
	}
	return errs
}

// validateProper checks a block as package kuadrantv1 does, with the CRD's message for a
// block without limits, reported at spec as the API server reports it.
func validateProper(s *kuadrantv1.RateLimitPolicySpecProper, p *field.Path, noLimits string) field.ErrorList {
	var errs field.ErrorList
	limits := p.Child("limits").String()
	for _, e := range kuadrantv1.ValidateProper(s, p) {
		if e.Type == field.ErrorTypeRequired && e.Field == limits {
			e = field.Invalid(field.NewPath("spec"), "object", noLimits)
		}
		errs = append(errs, e)
	}
	return errs
}

// Proper returns the block that is in effect: the defaults, the overrides, or the bare
// limits and when, with its strategy and whether it is an override.
func (s *TokenRateLimitPolicySpec) Proper() (proper kuadrantv1.RateLimitPolicySpecProper, strategy string, override bool) {
	rs := s.RateLimitSpec()
	return rs.Proper()
}
