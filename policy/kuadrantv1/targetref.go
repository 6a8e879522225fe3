package kuadrantv1

import (
	"regexp"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// The kinds a RateLimitPolicy may target.
var targetKinds = []string{"Gateway", "HTTPRoute", "GRPCRoute"}

// sectionNameRE is Gateway API's SectionName pattern (dot-separated DNS labels), which the
// CRD applies.
var sectionNameRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

// TargetRefRules are what a Kuadrant policy kind's CRD accepts in spec.targetRef and how it
// words a rejection. They are not an API object.
//
// +kubebuilder:object:generate=false
type TargetRefRules struct {
	// Kinds are the kinds the policy may target.
	Kinds []string
	// GroupMessage and KindMessage are the CRD's messages for a wrong group or kind,
	// reported as Invalid; when empty, the field is reported as NotSupported with the
	// supported values.
	GroupMessage, KindMessage string
}

// ValidateTargetRef checks a policy's target reference at tr (spec.targetRef): the group is
// gateway.networking.k8s.io, the kind one of r.Kinds, the name set, and a sectionName
// follows Gateway API's SectionName pattern. It returns every problem.
func ValidateTargetRef(ref gatewayv1.LocalPolicyTargetReferenceWithSectionName, tr *field.Path, r TargetRefRules) field.ErrorList {
	var errs field.ErrorList
	if ref.Group != gatewayv1.GroupName {
		errs = append(errs, rejectTarget(tr.Child("group"), ref.Group, r.GroupMessage, []string{gatewayv1.GroupName}))
	}
	if !slices.Contains(r.Kinds, string(ref.Kind)) {
		errs = append(errs, rejectTarget(tr.Child("kind"), ref.Kind, r.KindMessage, r.Kinds))
	}
	if ref.Name == "" {
		errs = append(errs, field.Required(tr.Child("name"), "the name of the target, in the policy's namespace"))
	}
	if ref.SectionName != nil {
		if e := ValidateSectionName(string(*ref.SectionName), tr.Child("sectionName")); e != nil {
			errs = append(errs, e)
		}
	}
	return errs
}

// rejectTarget reports v at p: Invalid with msg, or NotSupported listing valid when msg is
// empty.
func rejectTarget[T ~string](p *field.Path, v T, msg string, valid []string) *field.Error {
	if msg == "" {
		return field.NotSupported(p, v, valid)
	}
	return field.Invalid(p, string(v), msg)
}

// ValidateSectionName checks a targetRef's sectionName at p with Gateway API's
// SectionName pattern, which the CRDs apply; nil when it is valid.
func ValidateSectionName(s string, p *field.Path) *field.Error {
	if len(s) > 253 || !sectionNameRE.MatchString(s) {
		return field.Invalid(p, s, "must be a listener name of a Gateway or a rule name of a route: lower-case alphanumerics, '-' and '.', each dot-separated part starting and ending with an alphanumeric, at most 253 characters")
	}
	return nil
}
