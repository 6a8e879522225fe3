package envoygateway

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policyapi"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// FormatEnvoyGateway names the default output format of the BackendTrafficPolicy API:
// rlpkit compile -o envoy-gateway selects this API alone.
const FormatEnvoyGateway = "envoy-gateway"

// API is Envoy Gateway's BackendTrafficPolicy as a policyapi.API.
type API struct{}

var _ policyapi.API = API{}

// Name is the API's name.
func (API) Name() string { return "gateway.envoyproxy.io/v1alpha1 BackendTrafficPolicy" }

// Policies returns how many BackendTrafficPolicies set holds.
func (API) Policies(set *policy.Set) int { return len(set.BackendTrafficPolicies) }

// Formats has "envoy-gateway", the same as the default.
func (API) Formats() []string { return []string{FormatEnvoyGateway} }

// Compile compiles the policies of set (Compile).
func (API) Compile(set *policy.Set) (policyapi.Compiled, error) {
	res, err := Compile(set)
	if err != nil {
		return nil, err
	}
	return &Compiled{Result: res, set: set}, nil
}

// Compiled is a Result as a policyapi.Compiled.
type Compiled struct {
	*Result
	set *policy.Set
}

// Statuses are the policies' Accepted conditions, one status per policy and ancestor.
func (c *Compiled) Statuses() []policyapi.PolicyStatus { return c.Result.Statuses }

// Warnings are a warning for every Accepted condition that is False and every
// DeprecatedField warning (Warnings).
func (c *Compiled) Warnings() []policyapi.Warning { return Warnings(c.set, c.Result) }

// Output is the Result, what rlpkit compile prints: {rateLimitConfigs, routes, statuses}.
func (c *Compiled) Output(format string) (any, []string, error) {
	if format != "" && format != FormatEnvoyGateway {
		return nil, nil, fmt.Errorf("BackendTrafficPolicy: no output format %q", format)
	}
	return c.Result.Output(), nil, nil
}

// Limits is nil: Envoy Gateway's rate-limit service reads envoyproxy/ratelimit's files
// (ServiceFiles), not limits in limitador's format.
func (c *Compiled) Limits() []limitador.Limit { return nil }

// ServiceFiles returns the rate-limit service's configuration, one envoyproxy/ratelimit
// file per domain, by file name: the domain with "/" as "_" (no name of a namespace,
// Gateway, listener or policy holds "_"), and ".yaml".
func (c *Compiled) ServiceFiles() ([]policyapi.File, error) {
	var out []policyapi.File
	for i := range c.RateLimitConfigs {
		data, err := ConfigFile(&c.RateLimitConfigs[i])
		if err != nil {
			return nil, err
		}
		out = append(out, policyapi.File{Name: strings.ReplaceAll(c.RateLimitConfigs[i].Domain, "/", "_") + ".yaml", Data: data})
	}
	return out, nil
}

// Gateway returns what Envoy does with requests on Gateway name.
func (c *Compiled) Gateway(name string) (policyapi.Gateway, bool) {
	gw := c.Result.Gateway(name)
	if gw == nil {
		return nil, false
	}
	return gatewayPlane{gw: gw, routes: c.Routes, configs: c.RateLimitConfigs}, true
}

// Warnings returns a warning for every Accepted condition of res that is False, at the
// policy's targets (when Invalid, at the field of the first error): "file:line:
// BackendTrafficPolicy ns/name: spec.targetRefs: Reason: message (ancestor ns/gw)"; and
// one for each policy with a DeprecatedField warning, at the first deprecated field.
func Warnings(set *policy.Set, res *Result) []policyapi.Warning {
	keys := map[string]policy.ObjectKey{}
	for _, p := range set.BackendTrafficPolicies {
		keys[p.Namespace+"/"+p.Name] = policy.BackendTrafficPolicyKey(p)
	}
	var out []policyapi.Warning
	deprecations := map[string]bool{}
	for i := range res.Statuses {
		st := statusOutput(&res.Statuses[i])
		if st.Accepted == "False" {
			field := "spec.targetRefs"
			if st.Reason == ReasonInvalid {
				field = invalidField(st.Message)
			}
			out = append(out, warning(set, keys[st.Policy], st, field, st.Reason+": "+st.Message))
		}
		for _, c := range st.Conditions {
			if c.Type == ConditionWarning && !deprecations[st.Policy] {
				deprecations[st.Policy] = true
				st.Ancestor = "" // the same on every ancestor: said once
				out = append(out, warning(set, keys[st.Policy], st, deprecatedField(c.Message), c.Reason+": "+c.Message))
			}
		}
	}
	slices.SortStableFunc(out, func(a, b policyapi.Warning) int {
		return cmp.Or(cmp.Compare(a.Source.File, b.Source.File), cmp.Compare(a.Source.Line, b.Source.Line))
	})
	return out
}

// warning returns a Warning about policy key's status st at field, naming its ancestor.
func warning(set *policy.Set, key policy.ObjectKey, st StatusOutput, field, msg string) policyapi.Warning {
	src, _ := set.FieldSource(key, field)
	if st.Ancestor != "" {
		msg += " (ancestor " + st.Ancestor + ")"
	}
	return policyapi.Warning{Source: src, Object: "BackendTrafficPolicy " + st.Policy, Field: field, Message: msg}
}

// invalidFields are the fields of a policy by the name Envoy Gateway's errors give them.
var invalidFields = map[string]string{
	"RateLimit": "spec.rateLimit", "BandwidthLimit": "spec.bandwidthLimit", "TCPKeepalive": "spec.tcpKeepalive", "Retry": "spec.retry",
	"Timeout": "spec.timeout", "BackendConnection": "spec.connection", "HTTP2": "spec.http2",
	"ResponseOverride": "spec.responseOverride", "RequestBuffer": "spec.requestBuffer",
}

// invalidField returns the field an Invalid message's first error is about
// ("Timeout: ..." is spec.timeout); spec.rateLimit when it names none.
func invalidField(msg string) string {
	name, _, _ := strings.Cut(msg, ":")
	if f, ok := invalidFields[name]; ok {
		return f
	}
	return "spec.rateLimit"
}

// deprecatedField returns the first field a DeprecatedField message names.
func deprecatedField(msg string) string {
	f, _, _ := strings.Cut(msg, " ")
	return f
}

// Description is what rlpkit descriptors prints for BackendTrafficPolicy inputs: the same
// shape as for a PluginConfig (of the first rate-limit call), plus the route Envoy takes
// and every call.
type Description struct {
	// Policy is the xDS route's name, null when no route matched.
	Policy *string `json:"policy"`
	// Domain, Descriptors and HitsAddend are the first call's.
	Domain      string              `json:"domain"`
	Descriptors []rlsmsg.Descriptor `json:"descriptors"`
	HitsAddend  uint32              `json:"hits_addend"`
	// Listener and VirtualHost took the request; Route says where its rate limits come from.
	Listener    string          `json:"listener"`
	VirtualHost string          `json:"virtualHost"`
	Route       *DescribedRoute `json:"route"`
	// Calls are every rate-limit call when the request arrives, Done those when the
	// response is done (rules with a response cost).
	Calls []DescribedCall `json:"calls"`
	Done  []DescribedCall `json:"done"`
	// Local is the local rate limit's view of the request; null when the route has none.
	Local *LocalRequest `json:"local"`
}

// DescribedRoute is the route of a Description: the HTTPRoute (or GRPCRoute) match, the
// policy and level its rate limits come from, and the direct response of an invalid policy.
type DescribedRoute struct {
	HTTPRoute      string `json:"httpRoute"`
	GRPCRoute      string `json:"grpcRoute,omitempty"`
	Rule           int    `json:"rule"`
	Match          int    `json:"match"`
	Policy         string `json:"policy,omitempty"`
	Parent         string `json:"mergedInto,omitempty"`
	Level          string `json:"level,omitempty"`
	DirectResponse uint32 `json:"directResponse,omitempty"`
}

// DescribedCall is one rate-limit filter's call of a Description.
type DescribedCall struct {
	Filter      string              `json:"filter"`
	Domain      string              `json:"domain"`
	Descriptors []rlsmsg.Descriptor `json:"descriptors"`
	HitsAddend  uint32              `json:"hits_addend"`
	Rules       []string            `json:"rules"`
}

// gatewayPlane is what Envoy, configured by Envoy Gateway, does on one Gateway.
type gatewayPlane struct {
	gw      *Gateway
	routes  []RouteRateLimits
	configs []RateLimitConfig // the rate-limit service's, of every Gateway
}

// Config is the Gateway's routes' rate limits, as rlpkit compile prints them.
func (g gatewayPlane) Config() any {
	var out []RouteRateLimits
	for _, r := range g.routes {
		if r.Gateway == g.gw.Name {
			out = append(out, r)
		}
	}
	return out
}

// Describe evaluates req as Envoy would on the listener of its port (ListenerPort) and
// returns the Description and, with explain, the trace of the route and every rule.
func (g gatewayPlane) Describe(req *policyapi.Request, explain bool) (any, string, error) {
	dreq := req.Descriptor()
	ev := g.gw.Evaluate(&dreq, ListenerPort(req))
	var trace string
	if explain {
		trace = strings.Join(ev.Trace, "\n") + "\n"
	}
	return describe(ev), trace, nil
}

// ListenerPort returns the listener port of a request: its authority's, else its
// scheme's (80 for http, 443 for https), else 0 (Evaluate's default).
func ListenerPort(req *policyapi.Request) int32 {
	if i := strings.LastIndexByte(req.Host, ':'); i >= 0 && !strings.HasSuffix(req.Host, "]") {
		if p, err := strconv.Atoi(req.Host[i+1:]); err == nil {
			return int32(p)
		}
	}
	switch req.Scheme {
	case "http":
		return 80
	case "https":
		return 443
	}
	return 0
}

func describe(ev *Evaluation) Description {
	out := Description{Descriptors: []rlsmsg.Descriptor{}, Listener: ev.Listener, VirtualHost: ev.VirtualHost,
		Calls: describeCalls(ev.Calls), Done: describeCalls(ev.Done), Local: ev.Local}
	if rt := ev.Route; rt != nil {
		name := rt.Name
		out.Policy = &name
		out.Route = &DescribedRoute{HTTPRoute: rt.HTTPRoute, GRPCRoute: rt.GRPCRoute, Rule: rt.Rule, Match: rt.Match, Policy: rt.Policy, Parent: rt.Parent, Level: rt.Level, DirectResponse: rt.DirectResponse}
	}
	if len(ev.Calls) > 0 {
		c := ev.Calls[0].Request
		out.Domain, out.Descriptors, out.HitsAddend = c.Domain, c.Descriptors, c.HitsAddend
	}
	return out
}

func describeCalls(cs []Call) []DescribedCall {
	out := []DescribedCall{}
	for _, c := range cs {
		out = append(out, DescribedCall{Filter: c.Filter, Domain: c.Request.Domain, Descriptors: c.Request.Descriptors, HitsAddend: c.Request.HitsAddend, Rules: c.Rules})
	}
	return out
}
