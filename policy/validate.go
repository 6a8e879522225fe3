package policy

import (
	"errors"
	"fmt"
	"math"
	"net/netip"
	"regexp"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/fielderr"
	"github.com/rlpkit/rlpkit/limit/limitador"
)

// TargetGroup is the only group a RateLimitPolicy may target.
const TargetGroup = gatewayv1.GroupName

// ValidateRateLimitPolicy reports every problem of p on its own: its target reference
// (group gateway.networking.k8s.io, kind Gateway or HTTPRoute, a name), its gateway
// actions (as package descriptor validates a PluginConfig's) and its rate limits (max_value
// >= 0, seconds > 0, conditions that parse as package limit/limitador's conditions,
// variables as package limit/limitador reads them (an entry key or a CEL expression), no
// two limits of one section with the same patch key). The patch key (RateLimitSpec.PatchKey)
// is the limit's identity in package limit/limitador without its namespace, computed by
// limitador.IdentityKey: seconds, conditions as a set and variables as a set, each in
// canonical form, so k == v and k == 'v' are one condition and descriptors[0].user,
// descriptors[0]['user'] and user one variable; two spellings of one limit in a section
// are a Duplicate error. A target that does not exist is not a validation problem; merging
// reports it.
func ValidateRateLimitPolicy(p *RateLimitPolicy) field.ErrorList {
	var errs field.ErrorList
	spec := field.NewPath("spec")
	ref := spec.Child("targetRef")
	if p.Spec.TargetRef.Group != TargetGroup {
		errs = append(errs, field.NotSupported(ref.Child("group"), p.Spec.TargetRef.Group, []string{TargetGroup}))
	}
	switch p.Spec.TargetRef.Kind {
	case "Gateway", "HTTPRoute":
	default:
		errs = append(errs, field.NotSupported(ref.Child("kind"), p.Spec.TargetRef.Kind, []string{"Gateway", "HTTPRoute"}))
	}
	if p.Spec.TargetRef.Name == "" {
		errs = append(errs, field.Required(ref.Child("name"), ""))
	}
	if p.Spec.Default != nil {
		errs = append(errs, validateConfig(spec.Child("default"), p.Spec.Default)...)
	}
	if p.Spec.Override != nil {
		errs = append(errs, validateConfig(spec.Child("override"), p.Spec.Override)...)
	}
	return errs
}

func validateConfig(p *field.Path, cfg *RateLimitPolicyConfig) field.ErrorList {
	errs := fromDescriptor(descriptor.ValidateGatewayActions(p.Child("gatewayActions").String(), cfg.GatewayActions))
	limits := p.Child("rateLimits")
	first := make(map[string]int, len(cfg.RateLimits))
	for i := range cfg.RateLimits {
		rl := &cfg.RateLimits[i]
		lp := limits.Index(i)
		switch {
		case rl.MaxValue < 0:
			errs = append(errs, field.Invalid(lp.Child("max_value"), rl.MaxValue, "must be greater than or equal to 0"))
		case rl.MaxValue > math.MaxUint32:
			errs = append(errs, field.Invalid(lp.Child("max_value"), rl.MaxValue, "must be at most 4294967295"))
		}
		switch {
		case rl.Seconds <= 0:
			errs = append(errs, field.Invalid(lp.Child("seconds"), rl.Seconds, "must be greater than 0"))
		case rl.Seconds > math.MaxUint32:
			errs = append(errs, field.Invalid(lp.Child("seconds"), rl.Seconds, "must be at most 4294967295"))
		}
		for j, c := range rl.Conditions {
			if _, err := limitador.ParseCondition(c); err != nil {
				errs = append(errs, field.Invalid(lp.Child("conditions").Index(j), c, trimPackage(err.Error())))
			}
		}
		for j, v := range rl.Variables {
			if _, err := limitador.ParseVariable(v); err != nil {
				errs = append(errs, field.Invalid(lp.Child("variables").Index(j), v, err.Error()))
			}
		}
		key := rl.PatchKey()
		if k, dup := first[key]; dup {
			errs = append(errs, &field.Error{
				Type:     field.ErrorTypeDuplicate,
				Field:    lp.String(),
				BadValue: field.OmitValueType{},
				Detail:   fmt.Sprintf("same conditions, variables and seconds as %s: one of them would never apply", limits.Index(k)),
			})
		} else {
			first[key] = i
		}
	}
	return errs
}

// PatchKey identifies a rate limit for merging: its seconds, its conditions as a set and its
// variables as a set, in the canonical form of package limit/limitador (limitador.IdentityKey): k == v and
// k == 'v' are one condition, descriptors[0].user, descriptors[0]['user'] and user one
// variable. It is the limit's identity in the rate-limit service without the namespace, so two
// limits merged into one route patch each other exactly when the service would count them
// as one. Two limits with the same key in different sections patch each other; two in one
// section are a validation error.
func (r *RateLimitSpec) PatchKey() string {
	return limitador.IdentityKey(int64(r.Seconds), r.Conditions, r.Variables)
}

// fromDescriptor turns the descriptor package's errors into field errors.
func fromDescriptor(err error) field.ErrorList {
	var list fielderr.List
	if !errors.As(err, &list) {
		return nil
	}
	out := make(field.ErrorList, 0, len(list))
	for _, fe := range list {
		if fe.Detail == "required" {
			out = append(out, &field.Error{Type: field.ErrorTypeRequired, Field: fe.Field, BadValue: ""})
			continue
		}
		out = append(out, &field.Error{Type: field.ErrorTypeInvalid, Field: fe.Field, BadValue: field.OmitValueType{}, Detail: fe.Detail})
	}
	return out
}

// ValidateGateway reports the problems of a Gateway that matter to attaching routes and
// computing hostnames: listeners present with unique names, valid hostnames, ports and
// protocols, and well-formed allowedRoutes.
func ValidateGateway(gw *gatewayv1.Gateway) field.ErrorList {
	var errs field.ErrorList
	spec := field.NewPath("spec")
	if gw.Spec.GatewayClassName == "" {
		errs = append(errs, field.Required(spec.Child("gatewayClassName"), ""))
	}
	listeners := spec.Child("listeners")
	if len(gw.Spec.Listeners) == 0 {
		errs = append(errs, field.Required(listeners, "a Gateway needs at least one listener"))
	}
	names := make(map[gatewayv1.SectionName]int)
	for i := range gw.Spec.Listeners {
		l := &gw.Spec.Listeners[i]
		lp := listeners.Index(i)
		switch first, dup := names[l.Name]; {
		case l.Name == "":
			errs = append(errs, field.Required(lp.Child("name"), ""))
		case dup:
			errs = append(errs, &field.Error{Type: field.ErrorTypeDuplicate, Field: lp.Child("name").String(), BadValue: string(l.Name),
				Detail: "also the name of " + listeners.Index(first).String()})
		default:
			names[l.Name] = i
		}
		if l.Hostname != nil {
			if msg := hostnameProblem(string(*l.Hostname)); msg != "" {
				errs = append(errs, field.Invalid(lp.Child("hostname"), string(*l.Hostname), msg))
			}
		}
		if l.Port < 1 || l.Port > 65535 {
			errs = append(errs, field.Invalid(lp.Child("port"), l.Port, "must be between 1 and 65535"))
		}
		if l.Protocol == "" {
			errs = append(errs, field.Required(lp.Child("protocol"), ""))
		}
		errs = append(errs, validateAllowedRoutes(lp.Child("allowedRoutes"), l.AllowedRoutes)...)
	}
	return errs
}

func validateAllowedRoutes(p *field.Path, ar *gatewayv1.AllowedRoutes) field.ErrorList {
	if ar == nil {
		return nil
	}
	var errs field.ErrorList
	if ns := ar.Namespaces; ns != nil && ns.From != nil {
		np := p.Child("namespaces")
		switch *ns.From {
		case gatewayv1.NamespacesFromAll, gatewayv1.NamespacesFromSame:
		case gatewayv1.NamespacesFromSelector:
			if ns.Selector == nil {
				errs = append(errs, field.Required(np.Child("selector"), "from: Selector needs a selector"))
			} else if _, err := metav1.LabelSelectorAsSelector(ns.Selector); err != nil {
				errs = append(errs, field.Invalid(np.Child("selector"), field.OmitValueType{}, err.Error()))
			}
		default:
			errs = append(errs, field.NotSupported(np.Child("from"), string(*ns.From), []string{"All", "Same", "Selector"}))
		}
	}
	for i, k := range ar.Kinds {
		if k.Kind == "" {
			errs = append(errs, field.Required(p.Child("kinds").Index(i).Child("kind"), ""))
		}
	}
	return errs
}

// ValidateHTTPRoute reports the problems of an HTTPRoute that matter to attachment and
// merging: parentRefs present and named, valid hostnames, and path matches that start with
// "/"; and, for its matches, what the rate-limit filter must express (header names, header
// regular expressions, methods, paths without a query or fragment).
func ValidateHTTPRoute(r *gatewayv1.HTTPRoute) field.ErrorList {
	spec := field.NewPath("spec")
	errs := validateParentsAndHosts(spec, "an HTTPRoute", r.Spec.ParentRefs, r.Spec.Hostnames)
	for i, rule := range r.Spec.Rules {
		for j, m := range rule.Matches {
			errs = append(errs, validateRouteMatch(spec.Child("rules").Index(i).Child("matches").Index(j), &m)...)
		}
	}
	return errs
}

// validateParentsAndHosts checks a route's parentRefs and hostnames; what names the route
// ("an HTTPRoute") in the message of a route without parentRefs.
func validateParentsAndHosts(spec *field.Path, what string, parentRefs []gatewayv1.ParentReference, hosts []gatewayv1.Hostname) field.ErrorList {
	var errs field.ErrorList
	refs := spec.Child("parentRefs")
	if len(parentRefs) == 0 {
		errs = append(errs, field.Required(refs, what+" needs at least one parentRef"))
	}
	for i, ref := range parentRefs {
		if ref.Name == "" {
			errs = append(errs, field.Required(refs.Index(i).Child("name"), ""))
		}
		if ref.Port != nil && (*ref.Port < 1 || *ref.Port > 65535) {
			errs = append(errs, field.Invalid(refs.Index(i).Child("port"), *ref.Port, "must be between 1 and 65535"))
		}
	}
	for i, h := range hosts {
		if msg := hostnameProblem(string(h)); msg != "" {
			errs = append(errs, field.Invalid(spec.Child("hostnames").Index(i), string(h), msg))
		}
	}
	return errs
}

// httpMethods are Gateway API's HTTPMethod values.
var httpMethods = []string{"GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"}

// validateRouteMatch reports the problems of a match that merging turns into a PluginConfig
// routeMatch, so that a route the rate-limit filter cannot express is invalid rather than
// failing the compilation of its Gateway.
func validateRouteMatch(p *field.Path, m *gatewayv1.HTTPRouteMatch) field.ErrorList {
	var errs field.ErrorList
	if m.Path != nil && m.Path.Value != nil {
		vp := p.Child("path", "value")
		v := *m.Path.Value
		switch {
		case m.Path.Type != nil && *m.Path.Type == gatewayv1.PathMatchRegularExpression:
			if _, err := regexp.Compile(v); err != nil {
				errs = append(errs, field.Invalid(vp, v, err.Error()))
			}
		case !strings.HasPrefix(v, "/"):
			errs = append(errs, field.Invalid(vp, v, `must start with "/"`))
		case strings.ContainsAny(v, "?#"):
			errs = append(errs, field.Invalid(vp, v, `must not contain a query ("?") or fragment ("#"): match query parameters with queryParams`))
		}
	}
	if m.Method != nil && !slices.Contains(httpMethods, string(*m.Method)) {
		errs = append(errs, field.NotSupported(p.Child("method"), string(*m.Method), httpMethods))
	}
	for k, h := range m.Headers {
		hp := p.Child("headers").Index(k)
		if !isToken(string(h.Name)) {
			errs = append(errs, field.Invalid(hp.Child("name"), string(h.Name), "must be a header name (letters, digits and !#$%&'*+-.^_`|~)"))
		}
		if h.Type != nil && *h.Type == gatewayv1.HeaderMatchRegularExpression {
			// Anchored as the rate-limit filter compiles it.
			if _, err := regexp.Compile(`^(?:` + h.Value + `)$`); err != nil {
				errs = append(errs, field.Invalid(hp.Child("value"), h.Value, err.Error()))
			}
		}
	}
	return errs
}

// isToken reports whether s is an RFC 9110 token, the syntax of header names.
func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return s != ""
}

// ValidateNamespace reports the problems of a Namespace: it is cluster-scoped.
func ValidateNamespace(ns *Namespace) field.ErrorList {
	if ns.Namespace != "" {
		return field.ErrorList{field.Invalid(field.NewPath("metadata", "namespace"), ns.Namespace, "a Namespace is cluster-scoped: remove metadata.namespace")}
	}
	return nil
}

var hostnameRE = regexp.MustCompile(`^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

// hostnameProblem returns why h is not a Gateway API Hostname, or "": a lower-case DNS name,
// optionally with a "*." wildcard prefix, at most 253 bytes, not an IP address.
func hostnameProblem(h string) string {
	switch {
	case h == "":
		return "must not be empty"
	case len(h) > 253:
		return "must be no more than 253 bytes"
	case !hostnameRE.MatchString(h):
		return `must be a lower-case DNS name, optionally prefixed with "*." (as in "*.example.com")`
	}
	if _, err := netip.ParseAddr(h); err == nil {
		return "must be a hostname, not an IP address"
	}
	for _, label := range strings.Split(strings.TrimPrefix(h, "*."), ".") {
		if len(label) > 63 {
			return "labels must be no more than 63 bytes"
		}
	}
	return ""
}

// trimPackage drops the "pkg: " prefix of a dependency's error: the field path says where.
func trimPackage(msg string) string {
	if pkg, rest, ok := strings.Cut(msg, ": "); ok && !strings.ContainsAny(pkg, " \"") {
		return rest
	}
	return msg
}
