package kuadrant

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policyapi"
	"github.com/rlpkit/rlpkit/rlsmsg"
	"github.com/rlpkit/rlpkit/wasmshim"
)

// FormatKuadrant names the default output format of the kuadrant.io/v1 API: rlpkit
// compile -o kuadrant selects this API alone.
const FormatKuadrant = "kuadrant"

// API is kuadrant.io/v1's RateLimitPolicy as a policyapi.API: it compiles with Options, as
// kuadrant-operator does with its settings.
type API struct {
	// Options are the operator's settings.
	Options Options
}

var (
	_ policyapi.API    = API{}
	_ policyapi.Target = (*gatewayPlane)(nil)
)

// Name is the API's name: RateLimitPolicy (kuadrant.io/v1) and TokenRateLimitPolicy
// (kuadrant.io/v1alpha1), compiled together as kuadrant-operator does.
func (API) Name() string { return "kuadrant.io RateLimitPolicy and TokenRateLimitPolicy" }

// Policies returns how many kuadrant.io/v1 RateLimitPolicies and TokenRateLimitPolicies
// set holds.
func (API) Policies(set *policy.Set) int { return len(set.PoliciesV1) + len(set.TokenPolicies) }

// Formats has "kuadrant", the same as the default.
func (API) Formats() []string { return []string{FormatKuadrant} }

// Compile compiles the policies of set (Compile).
func (a API) Compile(set *policy.Set) (policyapi.Compiled, error) {
	return &Compiled{Result: Compile(set, a.Options), set: set}, nil
}

// Compiled is a Result as a policyapi.Compiled.
type Compiled struct {
	*Result
	set *policy.Set
}

// Statuses are the statuses of the RateLimitPolicies, TokenRateLimitPolicies and
// AuthPolicies, sorted by name, a RateLimitPolicy before a TokenRateLimitPolicy before an
// AuthPolicy of the same name.
func (c *Compiled) Statuses() []policyapi.PolicyStatus {
	out := append(append(slices.Clone(c.Policies), c.TokenPolicies...), c.AuthPolicies...)
	slices.SortStableFunc(out, func(a, b policyapi.PolicyStatus) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// Warnings are a warning for every condition that is not True (Warnings), and those of
// the TokenRateLimitPolicies and AuthPolicies.
func (c *Compiled) Warnings() []policyapi.Warning {
	out := append(Warnings(c.set, c.Result), tokenWarnings(c.set, c.Result)...)
	return append(out, authWarnings(c.set, c.Result)...)
}

// Output is what rlpkit compile prints: {gateways: [{gateway, wasm, limits}], policies}.
func (c *Compiled) Output(format string) (any, []string, error) {
	if format != "" && format != FormatKuadrant {
		return nil, nil, fmt.Errorf("kuadrant.io/v1: no output format %q", format)
	}
	out := Output{Gateways: c.Gateways, Policies: policyapi.StatusOutputs(c.Statuses())}
	if out.Gateways == nil {
		out.Gateways = []GatewayConfig{}
	}
	return out, nil, nil
}

// Gateway returns an evaluator of Gateway name's wasm-shim configuration.
func (c *Compiled) Gateway(name string) (policyapi.Gateway, bool) {
	for i := range c.Gateways {
		if c.Gateways[i].Gateway == name {
			return &gatewayPlane{gw: &c.Gateways[i], set: c.set}, true
		}
	}
	return nil, false
}

// Limits are Limitador's limits (Result.Limits).
func (c *Compiled) Limits() []limitador.Limit { return c.Result.Limits() }

// Output is what rlpkit compile prints for kuadrant.io/v1 policies.
type Output struct {
	// Gateways are what the operator deploys per Gateway.
	Gateways []GatewayConfig `json:"gateways"`
	// Policies are the policies' statuses.
	Policies []policyapi.StatusOutput `json:"policies"`
}

// Description is what rlpkit descriptors prints for kuadrant.io/v1 inputs: the same shape
// as for a PluginConfig (of the first rate-limit call), plus what wasm-shim chose.
type Description struct {
	// Policy is the scope of the first rate-limit call (the route), null when none.
	Policy *string `json:"policy"`
	// Domain is that call's domain.
	Domain string `json:"domain"`
	// Descriptors holds that call's one descriptor.
	Descriptors []DescribedDescriptor `json:"descriptors"`
	// HitsAddend is the call's ratelimit.hits_addend, else the request's.
	HitsAddend uint64 `json:"hits_addend"`
	// Hostname is the hostname of the configuration that matched, "" when none.
	Hostname string `json:"hostname"`
	// ActionSet is the action set that applied, null when none.
	ActionSet *ActionSetRef `json:"actionSet"`
	// Calls are every service call of the action set, in order.
	Calls []wasmshim.Call `json:"calls"`
}

// DescribedDescriptor is one descriptor of a Description.
type DescribedDescriptor struct {
	Entries []rlsmsg.Entry `json:"entries"`
}

// ActionSetRef names an action set of the configuration: its index and name.
type ActionSetRef struct {
	Index int    `json:"index"`
	Name  string `json:"name"`
}

// gatewayPlane is a Gateway's wasm-shim configuration, evaluated by package wasmshim.
type gatewayPlane struct {
	gw  *GatewayConfig
	set *policy.Set
	ev  *wasmshim.Evaluator
}

// evaluator returns the evaluator of the Gateway's configuration, built once.
func (g *gatewayPlane) evaluator() (*wasmshim.Evaluator, error) {
	if g.ev == nil {
		ev, err := wasmshim.New(&g.gw.Wasm)
		if err != nil {
			return nil, fmt.Errorf("Gateway %s: %w", g.gw.Gateway, err)
		}
		g.ev = ev
	}
	return g.ev, nil
}

// Target returns the Frontend of the Gateway's wasm-shim configuration and Limitador's
// limits, renamed after their origin (LimitNames).
func (g *gatewayPlane) Target() (policyapi.Frontend, []limitador.Limit, error) {
	ev, err := g.evaluator()
	if err != nil {
		return nil, nil, err
	}
	names := LimitNames(g.set)
	limits := make([]limitador.Limit, len(g.gw.Limits))
	for i, l := range g.gw.Limits {
		if name, ok := names[limitID(&l)]; ok {
			l.Name = name
		}
		limits[i] = l
	}
	return NewFrontend(ev), limits, nil
}

// Config is the Gateway's wasm-shim configuration.
func (g *gatewayPlane) Config() any { return &g.gw.Wasm }

// Describe evaluates req as wasm-shim does and returns the Description, and with explain
// the trace of the action sets, actions and blocks.
func (g *gatewayPlane) Describe(req *policyapi.Request, explain bool) (any, string, error) {
	ev, err := g.evaluator()
	if err != nil {
		return nil, "", err
	}
	wreq := req.WasmShim()
	res := ev.Evaluate(&wreq)
	var trace string
	if explain {
		trace = res.Explain()
	}
	out := Description{Descriptors: []DescribedDescriptor{}, HitsAddend: uint64(req.HitsAddend), Hostname: res.Hostname, Calls: res.Calls}
	if out.Calls == nil {
		out.Calls = []wasmshim.Call{}
	}
	if res.ActionSet >= 0 {
		out.ActionSet = &ActionSetRef{Index: res.ActionSet, Name: res.ActionSetName}
	}
	for _, c := range res.Calls {
		if c.Type != wasmshim.ServiceRateLimit {
			continue
		}
		scope := c.Domain
		out.Policy, out.Domain = &scope, c.Domain
		out.Descriptors = append(out.Descriptors, DescribedDescriptor{Entries: c.Entries})
		if c.HitsAddend > 0 {
			out.HitsAddend = c.HitsAddend
		}
		break
	}
	return out, trace, nil
}
