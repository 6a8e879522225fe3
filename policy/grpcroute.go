package policy

import (
	"regexp"

	"k8s.io/apimachinery/pkg/util/validation/field"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// KindGRPCRoute is the kind of a GRPCRoute (gateway.networking.k8s.io/v1) in a Set.
const KindGRPCRoute = "GRPCRoute"

// The characters the Gateway API's schema admits in an Exact method match.
var (
	grpcServiceRE = regexp.MustCompile(`^(?i)\.?[a-z_][a-z_0-9]*(\.[a-z_][a-z_0-9]*)*$`)
	grpcMethodRE  = regexp.MustCompile(`^[A-Za-z_][A-Za-z_0-9]*$`)
)

// ValidateGRPCRoute checks a GRPCRoute as the Gateway API's schema does where attachment and
// matching read it: parentRefs and hostnames as for an HTTPRoute, and each method match
// names a service or a method (an absent type is Exact, the schema's default), in the
// characters the schema admits for Exact, or as a regular expression that compiles.
func ValidateGRPCRoute(r *gatewayv1.GRPCRoute) field.ErrorList {
	spec := field.NewPath("spec")
	errs := validateParentsAndHosts(spec, "a GRPCRoute", r.Spec.ParentRefs, r.Spec.Hostnames)
	for i, rule := range r.Spec.Rules {
		for j, m := range rule.Matches {
			if m.Method == nil {
				continue
			}
			p := spec.Child("rules").Index(i).Child("matches").Index(j).Child("method")
			mm := m.Method
			if mm.Service == nil && mm.Method == nil {
				errs = append(errs, field.Invalid(p, "object", "One or both of 'service' or 'method' must be specified"))
				continue
			}
			regex := mm.Type != nil && *mm.Type == gatewayv1.GRPCMethodMatchRegularExpression
			for _, f := range []struct {
				name string
				v    *string
				re   *regexp.Regexp
			}{{"service", mm.Service, grpcServiceRE}, {"method", mm.Method, grpcMethodRE}} {
				switch {
				case f.v == nil:
				case regex:
					if _, err := regexp.Compile(*f.v); err != nil {
						errs = append(errs, field.Invalid(p.Child(f.name), *f.v, "not a valid regular expression: "+err.Error()))
					}
				case !f.re.MatchString(*f.v):
					errs = append(errs, field.Invalid(p.Child(f.name), *f.v, f.name+" must only contain valid characters (matching "+f.re.String()+")"))
				}
			}
		}
	}
	return errs
}
