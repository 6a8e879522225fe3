package egv1alpha1

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

func validateRateLimit(rl *RateLimitSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if rl.Type != nil {
		errs = append(errs, enum(p.Child("type"), *rl.Type, GlobalRateLimitType, LocalRateLimitType)...)
	}
	if g := rl.Global; g != nil {
		rp := p.Child("global", "rules")
		if len(g.Rules) > 256 {
			errs = append(errs, field.TooMany(rp, len(g.Rules), 256))
		}
		for i := range g.Rules {
			errs = append(errs, validateRule(&g.Rules[i], rp.Index(i))...)
		}
	}
	if l := rl.Local; l != nil {
		rp := p.Child("local", "rules")
		if len(l.Rules) > 16 {
			errs = append(errs, field.TooMany(rp, len(l.Rules), 16))
		}
		for i := range l.Rules {
			r := &l.Rules[i]
			errs = append(errs, validateRule(r, rp.Index(i))...)
			if r.Cost != nil && r.Cost.Response != nil {
				errs = append(errs, field.Invalid(rp.Index(i).Child("cost", "response"), "object", "response cost is not supported for Local Rate Limits"))
			}
			if r.Limit.FromMetadata != nil {
				errs = append(errs, field.Invalid(rp.Index(i).Child("limit", "fromMetadata"), "object", "limit fromMetadata is not supported for Local Rate Limits"))
			}
		}
	}
	return errs
}

func validateRule(r *RateLimitRule, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(r.ClientSelectors) > 8 {
		errs = append(errs, field.TooMany(p.Child("clientSelectors"), len(r.ClientSelectors), 8))
	}
	for i := range r.ClientSelectors {
		errs = append(errs, validateSelect(&r.ClientSelectors[i], p.Child("clientSelectors").Index(i))...)
	}
	lp := p.Child("limit")
	errs = append(errs, enum(lp.Child("unit"), r.Limit.Unit, Units...)...)
	if md := r.Limit.FromMetadata; md != nil {
		errs = append(errs, checkString(lp.Child("fromMetadata", "namespace"), md.Namespace, 1, 1<<20, nil, "")...)
		errs = append(errs, checkString(lp.Child("fromMetadata", "key"), md.Key, 1, 1<<20, nil, "")...)
	}
	if c := r.Cost; c != nil {
		if c.Request != nil {
			errs = append(errs, validateCost(c.Request, p.Child("cost", "request"))...)
		}
		if c.Response != nil {
			errs = append(errs, validateCost(c.Response, p.Child("cost", "response"))...)
		}
	}
	if r.XRateLimitHeaders != nil {
		errs = append(errs, enum(p.Child("xRateLimitHeaders"), *r.XRateLimitHeaders, XRateLimitHeadersOff, XRateLimitHeadersDraftVersion03)...)
	}
	return errs
}

func validateCost(c *RateLimitCostSpecifier, p *field.Path) field.ErrorList {
	errs := enum(p.Child("from"), c.From, RateLimitCostFromNumber, RateLimitCostFromMetadata)
	if c.Number != nil && c.Metadata != nil {
		errs = append(errs, field.Invalid(p, "object", "only one of number or metadata can be specified"))
	}
	return errs
}

func validateSelect(s *RateLimitSelectCondition, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(s.Headers) == 0 && len(s.Methods) == 0 && s.Path == nil && s.SourceCIDR == nil && len(s.QueryParams) == 0 {
		errs = append(errs, field.Invalid(p, "object", "at least one of headers, methods, path, sourceCIDR or queryParams must be specified"))
	}
	if len(s.Headers) > 128 {
		errs = append(errs, field.TooMany(p.Child("headers"), len(s.Headers), 128))
	}
	for i, h := range s.Headers {
		hp := p.Child("headers").Index(i)
		errs = append(errs, validateNameValue(hp, h.Name, h.Type, h.Value)...)
	}
	for i, m := range s.Methods {
		errs = append(errs, enum(p.Child("methods").Index(i).Child("value"), string(m.Value), methods...)...)
	}
	if pm := s.Path; pm != nil {
		pp := p.Child("path")
		if pm.Type != nil {
			errs = append(errs, enum(pp.Child("type"), *pm.Type, gatewayv1.PathMatchExact, gatewayv1.PathMatchPathPrefix, gatewayv1.PathMatchRegularExpression)...)
		}
		if len(pm.Value) > 1024 {
			errs = append(errs, field.TooLong(pp.Child("value"), "", 1024))
		}
	}
	if c := s.SourceCIDR; c != nil {
		cp := p.Child("sourceCIDR")
		if c.Type != nil {
			errs = append(errs, enum(cp.Child("type"), *c.Type, SourceMatchExact, SourceMatchDistinct)...)
		}
		errs = append(errs, checkString(cp.Child("value"), c.Value, 1, 256, nil, "")...)
	}
	if len(s.QueryParams) > 16 {
		errs = append(errs, field.TooMany(p.Child("queryParams"), len(s.QueryParams), 16))
	}
	for i, q := range s.QueryParams {
		errs = append(errs, validateNameValue(p.Child("queryParams").Index(i), q.Name, q.Type, q.Value)...)
	}
	return errs
}

// validateNameValue checks a header or query-parameter match.
func validateNameValue(p *field.Path, name string, typ *HeaderMatchType, value *string) field.ErrorList {
	errs := checkString(p.Child("name"), name, 1, 256, nil, "")
	if typ != nil {
		errs = append(errs, enum(p.Child("type"), *typ, HeaderMatchExact, HeaderMatchRegularExpression, HeaderMatchDistinct)...)
	}
	if value != nil && len(*value) > 1024 {
		errs = append(errs, field.TooLong(p.Child("value"), "", 1024))
	}
	return errs
}
