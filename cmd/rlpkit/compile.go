package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/rlpkit/rlpkit/envoyxds"
	"github.com/rlpkit/rlpkit/merge"
	"github.com/rlpkit/rlpkit/policy"
)

const compileSynopsis = `rlpkit compile [-o yaml|json|envoy|kuadrant|envoy-gateway] [--split DIR] [--upstream-cluster NAME] [--failure-mode-deny] [--explain ns/route] [--strict] PATH...

Reads Gateways, HTTPRoutes, RateLimitPolicies and Namespaces (files, directories, "-" for
stdin), merges the policies along Gateway -> HTTPRoute and prints, per Gateway, the
PluginConfig of its rate-limit filter and the limits of its rate-limit service, and every
policy's status:
{gateways: [{gateway, pluginConfig, limits}], policies: [{name, conditions}]}.
With -o envoy it prints instead, per Gateway, the configuration of Envoy's own rate-limit
filter (package envoyxds) as protojson: {gateways: [{gateway, envoy: {route_configuration,
http_filters}}]}; where Envoy would treat some requests differently, a caveat goes to stderr.
With -o kuadrant it compiles the kuadrant.io/v1 RateLimitPolicies as kuadrant-operator v1.5.2
does and prints, per Gateway, the wasm-shim v0.14 configuration and the Limitador limits
(the operator's settings are the --auth-* and --ratelimit-* flags), and every policy's
status: {gateways: [{gateway, wasm: {services, actionSets}, limits}], policies}.
With -o envoy-gateway it compiles Envoy Gateway's BackendTrafficPolicies as Envoy Gateway
v1.9 does and prints what it serves: {rateLimitConfigs: [{name, domain, descriptors}] (the
rate-limit service's configuration per domain), routes: [{name, rateLimits: {domain:
[RateLimit]}, localRateLimit}] (the xDS routes' rate limits, protojson), statuses: [{policy,
ancestor, accepted, reason, message}]}; --split DIR also writes each domain's configuration
as an envoyproxy/ratelimit file, DIR/<domain with / as _>.yaml, for cmd/ratelimit and
rlpkit serve --ratelimit-config.
With --explain, where each effective gateway action and rate limit of the route came from
goes to stderr.
Routes that attach to no Gateway and policies that apply to no request are warnings on
stderr, "warning: file:line: Kind namespace/name: field.path: why; what to do"; with
--strict any warning makes the command fail (exit 1, nothing on stdout).`

// runCompile implements "rlpkit compile".
func runCompile(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return exitFor("compile", compile(args, stdin, stdout, stderr), stderr)
}

func compile(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("compile")
	output := fs.String("o", "yaml", "output `format`: yaml, json, envoy (Envoy's own rate-limit filter), kuadrant (wasm-shim and Limitador) or envoy-gateway (what Envoy Gateway configures for BackendTrafficPolicies)")
	split := fs.String("split", "", "with -o envoy-gateway: also write one envoyproxy/ratelimit configuration file per domain into `DIR`")
	upstream := fs.String("upstream-cluster", merge.DefaultUpstreamCluster, "the Envoy `cluster` of the rate-limit service")
	deny := fs.Bool("failure-mode-deny", false, "deny traffic when the rate-limit service cannot be reached")
	explain := fs.String("explain", "", "print the provenance of the effective configuration of `ns/route` to stderr")
	strict := fs.Bool("strict", false, "fail (exit 1) when there are warnings, e.g. in CI")
	kflags := addKuadrantFlags(fs)
	paths, err := parseFlags(fs, args, compileSynopsis, true, stdout)
	if err != nil {
		return err
	}
	switch *output {
	case "yaml", "json", "envoy", "kuadrant", "envoy-gateway":
	default:
		return usagef("-o %q: want yaml, json, envoy, kuadrant or envoy-gateway", *output)
	}
	if *split != "" && *output != "envoy-gateway" {
		return usagef("--split is for -o envoy-gateway")
	}
	if len(paths) == 0 {
		return usagef("at least one PATH is required")
	}
	set, err := readInputs(paths, stdin, stderr)
	if *explain != "" {
		if err := checkName("--explain", policy.KindHTTPRoute, *explain, set); err != nil {
			return err
		}
	}
	if err != nil {
		return err
	}
	if *output == "kuadrant" {
		opts, err := kflags.options()
		if err != nil {
			return err
		}
		return compileKuadrant(set, opts, *strict, stdout, stderr)
	}
	if *output == "envoy-gateway" {
		return compileEnvoyGateway(set, *split, *strict, stdout, stderr)
	}
	res, err := merge.Compile(set, merge.Options{UpstreamCluster: *upstream, FailureModeDeny: *deny})
	if err != nil {
		return err
	}
	if n := len(set.PoliciesV1); n > 0 {
		fmt.Fprintf(stderr, "warning: %d kuadrant.io/v1 RateLimitPolicies left out: they compile with -o kuadrant\n", n)
	}
	if n := len(set.BackendTrafficPolicies); n > 0 {
		fmt.Fprintf(stderr, "warning: %d BackendTrafficPolicies left out: they compile with -o envoy-gateway\n", n)
	}
	printWarnings(stderr, res.Warnings)
	if err := strictError(*strict, res.Warnings); err != nil {
		return err
	}
	if *explain != "" {
		text, err := explainRoute(set, res, *explain)
		if err != nil {
			return err
		}
		fmt.Fprint(stderr, text)
	}
	var out []byte
	if *output == "envoy" {
		out, err = renderEnvoy(res, stderr)
	} else {
		out, err = render(compileOutput(res), *output)
	}
	if err != nil {
		return err
	}
	_, err = stdout.Write(out)
	return err
}

// renderEnvoy translates each Gateway's PluginConfig into Envoy's rate-limit filter
// configuration and prints it as deterministic protojson; caveats go to stderr.
func renderEnvoy(res *merge.Result, stderr io.Writer) ([]byte, error) {
	type gatewayEnvoy struct {
		Gateway string          `json:"gateway"`
		Envoy   json.RawMessage `json:"envoy"`
	}
	out := struct {
		Gateways []gatewayEnvoy `json:"gateways"`
	}{Gateways: []gatewayEnvoy{}}
	for _, gw := range res.Gateways {
		translated, err := envoyxds.Translate(&gw.PluginConfig, envoyxds.Options{RouteConfigName: gw.Gateway})
		if err != nil {
			return nil, fmt.Errorf("Gateway %s: %w", gw.Gateway, err)
		}
		for _, c := range translated.Caveats {
			fmt.Fprintf(stderr, "caveat: Gateway %s: %s\n", gw.Gateway, c)
		}
		js, err := translated.Render()
		if err != nil {
			return nil, fmt.Errorf("Gateway %s: %w", gw.Gateway, err)
		}
		out.Gateways = append(out.Gateways, gatewayEnvoy{Gateway: gw.Gateway, Envoy: js})
	}
	js, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(js, '\n'), nil
}

// The printed form: conditions without the timestamps and generations a file-based compile
// has no use for.
type (
	compiled struct {
		Gateways []merge.GatewayConfig `json:"gateways"`
		Policies []policyOutput        `json:"policies"`
	}
	policyOutput struct {
		Name       string            `json:"name"`
		Conditions []conditionOutput `json:"conditions"`
	}
	conditionOutput struct {
		Type    string `json:"type"`
		Status  string `json:"status"`
		Reason  string `json:"reason"`
		Message string `json:"message"`
	}
)

func compileOutput(res *merge.Result) compiled {
	out := compiled{Gateways: res.Gateways, Policies: []policyOutput{}}
	if out.Gateways == nil {
		out.Gateways = []merge.GatewayConfig{}
	}
	for _, p := range res.Policies {
		po := policyOutput{Name: p.Name}
		for _, c := range p.Conditions {
			po.Conditions = append(po.Conditions, conditionOutput{Type: c.Type, Status: string(c.Status), Reason: c.Reason, Message: c.Message})
		}
		out.Policies = append(out.Policies, po)
	}
	return out
}

// render encodes v as indented JSON or as YAML.
func render(v any, format string) ([]byte, error) {
	js, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	if format == "json" {
		return append(js, '\n'), nil
	}
	return yaml.JSONToYAML(js)
}

// explainRoute tells, for every Gateway the route is attached to, where each piece of its
// effective configuration came from. A route not among the inputs is an error naming those
// that are.
func explainRoute(set *policy.Set, res *merge.Result, route string) (string, error) {
	var b strings.Builder
	for _, gw := range res.Gateways {
		for _, rc := range gw.Routes {
			if rc.Route != route {
				continue
			}
			fmt.Fprintf(&b, "HTTPRoute %s on Gateway %s\n  domain %s\n  hostnames %s\n  sections, highest precedence first:\n", rc.Route, gw.Gateway, rc.Domain, strings.Join(rc.Hostnames, ", "))
			for _, s := range rc.Sections {
				fmt.Fprintf(&b, "    %s/%s %s (targets %s %s)\n", s.Policy.Namespace, s.Policy.Name, s.Name, s.Policy.Spec.TargetRef.Kind, s.Policy.Spec.TargetRef.Name)
			}
			b.WriteString("  gatewayActions:\n")
			for i, a := range rc.Actions {
				fmt.Fprintf(&b, "    [%d] from %s spec.%s.gatewayActions[%d]\n", i, a.Origin.Policy, a.Origin.Section, a.Origin.Index)
			}
			b.WriteString("  rateLimits:\n")
			for i, l := range rc.Limits {
				fmt.Fprintf(&b, "    [%d] %d per %ds %v from %s spec.%s.rateLimits[%d]\n", i, l.Limit.MaxValue, l.Limit.Seconds, l.Limit.Conditions, l.Origin.Policy, l.Origin.Section, l.Origin.Index)
			}
			for _, r := range rc.Replaced {
				fmt.Fprintf(&b, "  replaced: %s spec.%s.rateLimits[%d] by %s spec.%s.rateLimits[%d]\n", r.Limit.Policy, r.Limit.Section, r.Limit.Index, r.By.Policy, r.By.Section, r.By.Index)
			}
		}
	}
	if b.Len() > 0 {
		return b.String(), nil
	}
	ns, name, _ := strings.Cut(route, "/")
	if _, ok := set.Source(policy.ObjectKey{Kind: policy.KindHTTPRoute, Namespace: ns, Name: name}); !ok {
		return "", fmt.Errorf("--explain %s: no such HTTPRoute in the inputs; %s", route, inInputs(policy.KindHTTPRoute, route, set))
	}
	return "", fmt.Errorf("--explain %s: the HTTPRoute has no effective configuration on any Gateway: it attaches to none (see the warnings), or no policy applies to it", route)
}
