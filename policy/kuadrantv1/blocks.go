package kuadrantv1

import "k8s.io/apimachinery/pkg/util/validation/field"

// ValidateBlocks reports at spec, as kuadrant.io/v1's CRDs do, a spec that sets more than
// one of implicit defaults (fields at the top of spec), explicit defaults and overrides:
// the first conflict only, nil when there is none. fields names what the top of spec
// holds ("limits and when"), in the message that says where to move it.
func ValidateBlocks(spec *field.Path, implicit, defaults, overrides bool, fields string) *field.Error {
	switch {
	case defaults && implicit:
		return field.Invalid(spec, "object", "Implicit and explicit defaults are mutually exclusive: move "+fields+" into spec.defaults")
	case defaults && overrides:
		return field.Invalid(spec, "object", "Overrides and explicit defaults are mutually exclusive: keep one of spec.defaults and spec.overrides")
	case overrides && implicit:
		return field.Invalid(spec, "object", "Overrides and implicit defaults are mutually exclusive: move "+fields+" into spec.overrides")
	}
	return nil
}
