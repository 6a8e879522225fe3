package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/rlpkit/rlpkit/envoygateway"
	"github.com/rlpkit/rlpkit/merge"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policyapi"
	"github.com/rlpkit/rlpkit/policyapi/apis"
)

const compileSynopsis = `rlpkit compile [-o yaml|json|envoy] [--split DIR] [--upstream-cluster NAME] [--failure-mode-deny] [--explain ns/route] [--strict] PATH...

Reads Gateways, HTTPRoutes, the policies of every API rlpkit knows (apim.kuadrant.io/v1alpha1
and kuadrant.io/v1 RateLimitPolicies, Envoy Gateway's BackendTrafficPolicies) and
Namespaces (files, directories, "-" for stdin), compiles the policies of each API the
input holds and prints the result, per API:
- apim.kuadrant.io/v1alpha1: the policies merged along Gateway -> HTTPRoute, per Gateway
  the PluginConfig of its rate-limit filter and the limits of its rate-limit service, and
  every policy's status: {gateways: [{gateway, pluginConfig, limits}], policies: [{name,
  conditions}]}. Input with no policy at all prints this, each Gateway with no policy.
- kuadrant.io/v1: compiled as kuadrant-operator v1.5.2 does, per Gateway the wasm-shim v0.14
  configuration and the Limitador limits (the operator's settings are the --auth-* and
  --ratelimit-* flags), and every policy's status: {gateways: [{gateway, wasm: {services,
  actionSets}, limits}], policies}.
- BackendTrafficPolicy: compiled as Envoy Gateway v1.9 does, what it serves:
  {rateLimitConfigs: [{name, domain, descriptors}] (the rate-limit service's
  configuration per domain), routes: [{gateway, name, rateLimits: {domain: [RateLimit]},
  localRateLimit}] (each Gateway's xDS routes' rate limits, protojson), statuses: [{policy,
  ancestor, accepted, reason, message, conditions}]}; --split DIR also writes each domain's
  configuration as an envoyproxy/ratelimit file, DIR/<domain with / as _>.yaml, for
  cmd/ratelimit and rlpkit serve --ratelimit-config.
An input holding several APIs prints one section per API, named after it:
{"<API name>": <its output>, ...}.
-o yaml (the default) and -o json choose the encoding. -o envoy prints instead, for the
apim.kuadrant.io/v1alpha1 policies, per Gateway, the configuration of Envoy's own
rate-limit filter (package envoyxds) as protojson: {gateways: [{gateway, envoy:
{route_configuration, http_filters}}]}; where Envoy would treat some requests differently,
a caveat goes to stderr.
-o kuadrant and -o envoy-gateway are accepted and unnecessary: each compiles that one API
only, and says what it leaves out.
With --explain, where each effective gateway action and rate limit of an
apim.kuadrant.io/v1alpha1 route came from goes to stderr.
Routes that attach to no Gateway, policies that apply to no request and every policy that
is not Accepted or not Enforced (a target not found says what there is) are warnings on
stderr, "warning: file:line: Kind namespace/name: field.path: why; what to do"; with
--strict any warning makes the command fail (exit 1, nothing on stdout).`

// runCompile implements "rlpkit compile".
func runCompile(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return exitFor("compile", compile(args, stdin, stdout, stderr), stderr)
}

func compile(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("compile")
	output := fs.String("o", "yaml", "output `format`: yaml, json or envoy (Envoy's own rate-limit filter, for apim.kuadrant.io/v1alpha1 policies); kuadrant and envoy-gateway compile that API only")
	split := fs.String("split", "", "for BackendTrafficPolicies: also write one envoyproxy/ratelimit configuration file per domain into `DIR`")
	upstream := fs.String("upstream-cluster", merge.DefaultUpstreamCluster, "the Envoy `cluster` of the rate-limit service, for apim.kuadrant.io/v1alpha1 policies")
	deny := fs.Bool("failure-mode-deny", false, "deny traffic when the rate-limit service cannot be reached, for apim.kuadrant.io/v1alpha1 policies")
	explain := fs.String("explain", "", "print the provenance of the effective configuration of `ns/route` (apim.kuadrant.io/v1alpha1) to stderr")
	strict := fs.Bool("strict", false, "fail (exit 1) when there are warnings, e.g. in CI")
	kflags := addKuadrantFlags(fs)
	paths, err := parseFlags(fs, args, compileSynopsis, true, stdout)
	if err != nil {
		return err
	}
	format, encoding := "", *output
	if *output != "yaml" && *output != "json" {
		format, encoding = *output, "json"
		if !slices.Contains(apis.Formats(), format) {
			formats := apis.Formats()
			return usagef("-o %q: want yaml, json, %s or %s", *output, strings.Join(formats[:len(formats)-1], ", "), formats[len(formats)-1])
		}
	}
	if *split != "" && format != "" && format != envoygateway.FormatEnvoyGateway {
		return usagef("--split is for BackendTrafficPolicies (-o envoy-gateway)")
	}
	if len(paths) == 0 {
		return usagef("at least one PATH is required")
	}
	kopts, err := kflags.options()
	if err != nil {
		return err
	}
	opts := apis.Options{Merge: merge.Options{UpstreamCluster: *upstream, FailureModeDeny: *deny}, Kuadrant: kopts}
	set, err := readInputs(paths, stdin, stderr)
	if *explain != "" {
		if err := checkName("--explain", policy.KindHTTPRoute, *explain, set); err != nil {
			return err
		}
	}
	if err != nil {
		return err
	}
	selected := apis.Select(set, opts)
	if format != "" {
		api, _ := apis.ByFormat(format, opts)
		selected = []policyapi.API{api}
		noteLeftOut(set, selected, opts, "-o "+format+" compiles "+api.Name()+" only", stderr)
		if format != merge.FormatEnvoy {
			// -o kuadrant and -o envoy-gateway name their API's default output, in YAML;
			// -o envoy's is protojson, printed as JSON.
			format, encoding = "", "yaml"
		}
	}
	compiled, warnings, err := compileAPIs(set, selected, stderr)
	if err != nil {
		return err
	}
	if err := strictError(*strict, warnings); err != nil {
		return err
	}
	if *explain != "" {
		if err := explainCompiled(set, compiled, *explain, stderr); err != nil {
			return err
		}
	}
	if *split != "" {
		if err := writeSplit(*split, compiled, stderr); err != nil {
			return err
		}
	}
	var v any
	if len(compiled) == 1 {
		if v, err = printedOutput(compiled[0], format, stderr); err != nil {
			return err
		}
	} else {
		sections := map[string]any{}
		for _, c := range compiled {
			if sections[c.api.Name()], err = printedOutput(c, format, stderr); err != nil {
				return err
			}
		}
		v = sections
	}
	out, err := render(v, encoding)
	if err != nil {
		return err
	}
	_, err = stdout.Write(out)
	return err
}

// printedOutput returns what compile prints of c in format ("" for the API's default, or
// the default where the API does not have format); caveats go to stderr.
func printedOutput(c compiledAPI, format string, stderr io.Writer) (any, error) {
	if !slices.Contains(c.api.Formats(), format) {
		format = ""
	}
	v, caveats, err := c.Output(format)
	for _, cv := range caveats {
		fmt.Fprintf(stderr, "caveat: %s\n", cv)
	}
	return v, err
}

// writeSplit writes one rate-limit service file per domain of the compiled APIs whose
// service reads files into dir, creating it, and notes on stderr the YAML files already
// there that it did not write.
func writeSplit(dir string, compiled []compiledAPI, stderr io.Writer) error {
	var files []policyapi.File
	found := false
	for _, c := range compiled {
		sf, ok := c.Compiled.(policyapi.ServiceFiler)
		if !ok {
			continue
		}
		found = true
		list, err := sf.ServiceFiles()
		if err != nil {
			return err
		}
		files = append(files, list...)
	}
	if !found {
		return usagef("--split writes the rate-limit service's files of BackendTrafficPolicies; the inputs hold none")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	written := map[string]bool{}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
			return err
		}
		written[f.Name] = true
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if ext := filepath.Ext(e.Name()); !e.IsDir() && !written[e.Name()] && (ext == ".yaml" || ext == ".yml") {
			fmt.Fprintf(stderr, "warning: --split %s: %s was not written by this compile; a rate-limit service reading the directory reads it too\n", dir, e.Name())
		}
	}
	return nil
}

// explainCompiled prints the provenance of route's effective configuration, from the
// compiled apim.kuadrant.io/v1alpha1 policies.
func explainCompiled(set *policy.Set, compiled []compiledAPI, route string, stderr io.Writer) error {
	for _, c := range compiled {
		if mc, ok := c.Compiled.(*merge.Compiled); ok {
			text, err := explainRoute(set, mc.Result, route)
			if err != nil {
				return err
			}
			fmt.Fprint(stderr, text)
			return nil
		}
	}
	return usagef("--explain %s: it explains apim.kuadrant.io/v1alpha1 RateLimitPolicies; the inputs hold none", route)
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
