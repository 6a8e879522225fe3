package merge

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/envoyxds"
	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policyapi"
)

// FormatEnvoy is the output format of Envoy's own rate-limit filter (package envoyxds).
const FormatEnvoy = "envoy"

// API is apim.kuadrant.io/v1alpha1's RateLimitPolicy as a policyapi.API: it compiles with
// Options.
type API struct {
	// Options are Compile's.
	Options Options
}

var (
	_ policyapi.API    = API{}
	_ policyapi.Target = (*gatewayPlane)(nil)
)

// Name is the API's name.
func (API) Name() string { return "apim.kuadrant.io/v1alpha1 RateLimitPolicy" }

// Policies returns how many apim.kuadrant.io/v1alpha1 RateLimitPolicies set holds.
func (API) Policies(set *policy.Set) int { return len(set.Policies) }

// Formats are the output formats beyond the default: "envoy", the configuration of Envoy's
// own rate-limit filter.
func (API) Formats() []string { return []string{FormatEnvoy} }

// Compile compiles the policies of set (Compile).
func (a API) Compile(set *policy.Set) (policyapi.Compiled, error) {
	res, err := Compile(set, a.Options)
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

// Statuses are the policies' statuses.
func (c *Compiled) Statuses() []policyapi.PolicyStatus { return c.Policies }

// Warnings are what Diagnose finds, plus a warning for each policy that is not Accepted or
// not Enforced and has no warning of its own yet.
func (c *Compiled) Warnings() []policyapi.Warning {
	out := slices.Clone(c.Result.Warnings)
	warned := map[string]bool{}
	for _, w := range out {
		warned[w.Object] = true
	}
	for _, p := range c.Policies {
		obj := policy.KindRateLimitPolicy + " " + p.Name
		if warned[obj] {
			continue
		}
		for _, cond := range p.Conditions {
			if cond.Status == "True" {
				continue
			}
			k := policy.ObjectKey{Kind: policy.KindRateLimitPolicy}
			k.Namespace, k.Name = splitName(p.Name)
			src, _ := c.set.FieldSource(k, "spec")
			out = append(out, policyapi.Warning{Source: src, Object: obj, Field: "spec", Message: cond.Reason + ": " + cond.Message})
			break
		}
	}
	slices.SortFunc(out, compareWarnings)
	return out
}

// Output is what rlpkit compile prints: {gateways, policies}, or with format "envoy" the
// configuration of Envoy's own rate-limit filter per Gateway, whose caveats (what Envoy
// would treat differently) it returns.
func (c *Compiled) Output(format string) (any, []string, error) {
	switch format {
	case "":
		out := Output{Gateways: c.Gateways, Policies: policyapi.StatusOutputs(c.Policies)}
		if out.Gateways == nil {
			out.Gateways = []GatewayConfig{}
		}
		return out, nil, nil
	case FormatEnvoy:
		return envoyOutput(c.Result)
	}
	return nil, nil, fmt.Errorf("apim.kuadrant.io/v1alpha1: no output format %q", format)
}

// Limits are the limits of every Gateway.
func (c *Compiled) Limits() []limitador.Limit {
	var out []limitador.Limit
	for _, gw := range c.Gateways {
		out = append(out, gw.Limits...)
	}
	return out
}

// Gateway returns the descriptor engine of Gateway name's PluginConfig.
func (c *Compiled) Gateway(name string) (policyapi.Gateway, bool) {
	for i := range c.Gateways {
		if c.Gateways[i].Gateway == name {
			return &gatewayPlane{gw: &c.Gateways[i]}, true
		}
	}
	return nil, false
}

// Output is what rlpkit compile prints for apim.kuadrant.io/v1alpha1 policies.
type Output struct {
	// Gateways are the compiled Gateways.
	Gateways []GatewayConfig `json:"gateways"`
	// Policies are the policies' statuses.
	Policies []policyapi.StatusOutput `json:"policies"`
}

// EnvoyOutput is what rlpkit compile -o envoy prints: per Gateway, Envoy's rate-limit
// filter configuration as protojson.
type EnvoyOutput struct {
	Gateways []EnvoyGateway `json:"gateways"`
}

// EnvoyGateway is one Gateway of EnvoyOutput.
type EnvoyGateway struct {
	Gateway string          `json:"gateway"`
	Envoy   json.RawMessage `json:"envoy"`
}

// envoyOutput translates each Gateway's PluginConfig into Envoy's rate-limit filter
// configuration; caveats say what Envoy would treat differently.
func envoyOutput(res *Result) (any, []string, error) {
	out := EnvoyOutput{Gateways: []EnvoyGateway{}}
	var caveats []string
	for _, gw := range res.Gateways {
		translated, err := envoyxds.Translate(&gw.PluginConfig, envoyxds.Options{RouteConfigName: gw.Gateway})
		if err != nil {
			return nil, nil, fmt.Errorf("Gateway %s: %w", gw.Gateway, err)
		}
		for _, c := range translated.Caveats {
			caveats = append(caveats, fmt.Sprintf("Gateway %s: %s", gw.Gateway, c))
		}
		js, err := translated.Render()
		if err != nil {
			return nil, nil, fmt.Errorf("Gateway %s: %w", gw.Gateway, err)
		}
		out.Gateways = append(out.Gateways, EnvoyGateway{Gateway: gw.Gateway, Envoy: js})
	}
	return out, caveats, nil
}

// gatewayPlane is a Gateway's PluginConfig, evaluated by package descriptor.
type gatewayPlane struct {
	gw     *GatewayConfig
	engine *descriptor.Engine
}

// Config is the Gateway's PluginConfig.
func (g *gatewayPlane) Config() any { return &g.gw.PluginConfig }

// compiled returns the descriptor engine of the Gateway's PluginConfig, compiled once.
func (g *gatewayPlane) compiled() (*descriptor.Engine, error) {
	if g.engine == nil {
		engine, err := descriptor.Compile(&g.gw.PluginConfig)
		if err != nil {
			return nil, fmt.Errorf("Gateway %s: %w", g.gw.Gateway, err)
		}
		g.engine = engine
	}
	return g.engine, nil
}

// Describe returns the descriptors the Gateway's filter generates for req.
func (g *gatewayPlane) Describe(req *policyapi.Request, explain bool) (any, string, error) {
	engine, err := g.compiled()
	if err != nil {
		return nil, "", err
	}
	return DescribeWith(engine, req, explain)
}

// Target returns the Frontend of the Gateway's descriptor engine and its limits.
func (g *gatewayPlane) Target() (policyapi.Frontend, []limitador.Limit, error) {
	engine, err := g.compiled()
	if err != nil {
		return nil, nil, err
	}
	return NewFrontend(engine), g.gw.Limits, nil
}

// DescribeWith returns the descriptors engine generates for req and, with explain, its
// trace.
func DescribeWith(engine *descriptor.Engine, req *policyapi.Request, explain bool) (any, string, error) {
	dreq := req.Descriptor()
	res, trace := engine.Explain(&dreq)
	if !explain {
		return res, "", nil
	}
	return res, trace.String(), nil
}

func splitName(s string) (ns, name string) {
	for i := 0; i < len(s); i++ {
		if s[i] == '/' {
			return s[:i], s[i+1:]
		}
	}
	return "", s
}
