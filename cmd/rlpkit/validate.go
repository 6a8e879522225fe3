package main

import (
	"fmt"
	"io"
	"slices"

	"github.com/rlpkit/rlpkit/merge"
	"github.com/rlpkit/rlpkit/policyapi"
	"github.com/rlpkit/rlpkit/policyapi/apis"
)

const validateSynopsis = `rlpkit validate [--strict] PATH...

Reads Gateways, HTTPRoutes, GRPCRoutes, RateLimitPolicies, TokenRateLimitPolicies, AuthPolicies,
BackendTrafficPolicies and Namespaces from files, directories
(every *.yaml, *.yml and *.json, recursively) and "-" (stdin), and prints every problem on
stderr, one a line, as file:line: Kind namespace/name: field.path: what is wrong.
A PluginConfig or a limits file (limitador's format) among the inputs is checked as what
it is. Other Kubernetes objects and files that are not Kubernetes objects are skipped, with
one notice per file on stderr ("skipped deploy.yaml: apps/v1 Deployment").
The policies of every API the inputs hold are compiled: routes that attach to no Gateway,
policies that apply to no request and every policy that is not Accepted or not Enforced
(Conflicted, Invalid, TargetNotFound with what there is, Overridden) are warnings on stderr;
--strict makes them fail too (notices never do).
Exit status 0 when everything is valid, 1 when anything is not.`

// runValidate implements "rlpkit validate".
func runValidate(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return exitFor("validate", validate(args, stdin, stdout, stderr), stderr)
}

func validate(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("validate")
	strict := fs.Bool("strict", false, "fail (exit 1) when there are warnings, e.g. in CI")
	paths, err := parsePaths(fs, args, validateSynopsis, stdout)
	if err != nil {
		return err
	}
	set, err := readInputs(paths, stdin, stderr)
	if err != nil {
		return err
	}
	selected := apis.Select(set, apis.Options{})
	var warnings []policyapi.Warning
	if !slices.ContainsFunc(selected, func(api policyapi.API) bool { return api.Name() == (merge.API{}).Name() }) {
		// What merge.Diagnose says of the Gateways and HTTPRoutes themselves (a route that
		// attaches to no Gateway) holds whatever the policies' API.
		warnings = merge.Diagnose(set)
		printWarnings(stderr, warnings)
	}
	_, more, err := compileAPIs(set, selected, stderr)
	if err != nil {
		return err
	}
	if err := strictError(*strict, append(warnings, more...)); err != nil {
		return err
	}
	summary := fmt.Sprintf("%d Gateways, %d HTTPRoutes, %d RateLimitPolicies, %d Namespaces",
		len(set.Gateways), len(set.HTTPRoutes), len(set.Policies), len(set.Namespaces))
	// The kinds that are not always present are named only when the input holds some.
	for _, k := range []struct {
		n    int
		name string
	}{
		{len(set.GRPCRoutes), "GRPCRoutes"},
		{len(set.PoliciesV1), "kuadrant.io/v1 RateLimitPolicies"},
		{len(set.AuthPolicies), "AuthPolicies"},
		{len(set.TokenPolicies), "TokenRateLimitPolicies"},
		{len(set.BackendTrafficPolicies), "BackendTrafficPolicies"},
		{len(set.PluginConfigs), "PluginConfigs"},
		{len(set.LimitLists), "limits files"},
	} {
		if k.n > 0 {
			summary += fmt.Sprintf(", %d %s", k.n, k.name)
		}
	}
	_, err = fmt.Fprintln(stdout, summary+": valid")
	return err
}
