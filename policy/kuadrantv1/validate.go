package kuadrantv1

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/rlpkit/rlpkit/wasmshim"
)

// ValidateRateLimitPolicy checks a policy as its CRD does, and type-checks its counters
// against Kuadrant's well-known attributes. It returns every problem, with field paths.
// Predicates are not type-checked here: kuadrant-operator accepts a policy whatever its
// predicates and checks them on each path its limits are in effect on (package kuadrant
// does the same, with CheckPredicates' stricter check as a warning).
func ValidateRateLimitPolicy(p *RateLimitPolicy) field.ErrorList {
	spec := field.NewPath("spec")
	errs := ValidateTargetRef(p.Spec.TargetRef, spec.Child("targetRef"), TargetRefRules{Kinds: targetKinds})

	implicit := p.Spec.Limits != nil || p.Spec.When != nil
	if e := ValidateBlocks(spec, implicit, p.Spec.Defaults != nil, p.Spec.Overrides != nil, "limits and when"); e != nil {
		errs = append(errs, e)
	}
	if p.Spec.Defaults != nil {
		errs = append(errs, validateMergeable(p.Spec.Defaults, spec.Child("defaults"))...)
	}
	if p.Spec.Overrides != nil {
		errs = append(errs, validateMergeable(p.Spec.Overrides, spec.Child("overrides"))...)
	}
	if p.Spec.Defaults == nil && p.Spec.Overrides == nil {
		errs = append(errs, validateProper(&p.Spec.RateLimitPolicySpecProper, spec)...)
	}
	return errs
}

func validateMergeable(m *MergeableRateLimitPolicySpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch m.Strategy {
	case "", StrategyAtomic, StrategyMerge:
	default:
		errs = append(errs, field.NotSupported(p.Child("strategy"), m.Strategy, []string{StrategyAtomic, StrategyMerge}))
	}
	return append(errs, validateProper(&m.RateLimitPolicySpecProper, p)...)
}

func validateProper(s *RateLimitPolicySpecProper, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateWhen(s.When, p.Child("when"))...)
	if len(s.Limits) == 0 {
		errs = append(errs, field.Required(p.Child("limits"), "at least one limit: a name and its rates"))
	}
	names := make([]string, 0, len(s.Limits))
	for name := range s.Limits {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		lp := p.Child("limits").Key(name)
		if name == "" {
			errs = append(errs, field.Invalid(lp, name, "a limit needs a name"))
		}
		l := s.Limits[name]
		errs = append(errs, validateWhen(l.When, lp.Child("when"))...)
		for i, c := range l.Counters {
			cp := lp.Child("counters").Index(i).Child("expression")
			switch {
			case strings.TrimSpace(c.Expression) == "":
				errs = append(errs, field.Required(cp, "a CEL expression whose value qualifies the counter, e.g. source.remote_address"))
			case strings.ContainsAny(c.Expression, `"\`):
				// The operator writes the counter into Limitador's variable
				// descriptors[0]["<expression>"] as it is: a double quote or backslash
				// breaks that string.
				errs = append(errs, field.Invalid(cp, c.Expression, `a double quote or backslash breaks the Limitador variable descriptors[0]["..."] kuadrant-operator writes for the counter; write strings in single quotes, e.g. request.headers['x-user']`))
			default:
				if err := wasmshim.CheckExpression(c.Expression); err != nil {
					errs = append(errs, field.Invalid(cp, c.Expression, checkMessage(err)+"; a counter that does not type-check never has a value, so its limit would never apply"))
				}
			}
		}
		for i, r := range l.Rates {
			rp := lp.Child("rates").Index(i)
			if _, ok := WindowSeconds(r.Window); !ok {
				if r.Window == "" {
					errs = append(errs, field.Required(rp.Child("window"), "a duration such as 30s, 1m or 1h30m"))
				} else {
					errs = append(errs, field.Invalid(rp.Child("window"), r.Window, "must match ^([0-9]{1,5}(h|m|s|ms)){1,4}$: a duration such as 30s, 1m or 1h30m (no spaces, no days)"))
				}
			}
		}
	}
	return errs
}

// validateWhen checks a list of predicates: when present, at least one, none blank.
func validateWhen(when []WhenPredicate, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if when != nil && len(when) == 0 {
		errs = append(errs, field.Invalid(p, "[]", "must have at least one predicate when present; leave when out to apply always"))
	}
	for i, w := range when {
		pp := p.Index(i).Child("predicate")
		if strings.TrimSpace(w.Predicate) == "" {
			errs = append(errs, field.Required(pp, "a CEL predicate such as request.method == 'POST'"))
		}
	}
	return errs
}

func checkMessage(err error) string {
	var ce *wasmshim.CheckError
	if errors.As(err, &ce) {
		return ce.Msg
	}
	return fmt.Sprint(err)
}
