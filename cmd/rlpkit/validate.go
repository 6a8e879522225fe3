package main

import (
	"fmt"
	"io"

	"github.com/rlpkit/rlpkit/merge"
)

const validateSynopsis = `rlpkit validate [--strict] PATH...

Reads Gateways, HTTPRoutes, RateLimitPolicies, BackendTrafficPolicies and Namespaces from files, directories
(every *.yaml, *.yml and *.json, recursively) and "-" (stdin), and prints every problem on
stderr, one a line, as file:line: Kind namespace/name: field.path: what is wrong.
A PluginConfig or a limits file (limitador's format) among the inputs is checked as what
it is. Other Kubernetes objects and files that are not Kubernetes objects are skipped, with
one notice per file on stderr ("skipped deploy.yaml: apps/v1 Deployment").
Routes that attach to no Gateway and policies that apply to no request are warnings on
stderr, and so are BackendTrafficPolicies Envoy Gateway would not accept (Conflicted,
Invalid, TargetNotFound); --strict makes them fail too (notices never do).
Exit status 0 when everything is valid, 1 when anything is not.`

// runValidate implements "rlpkit validate".
func runValidate(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return exitFor("validate", validate(args, stdin, stdout, stderr), stderr)
}

func validate(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("validate")
	strict := fs.Bool("strict", false, "fail (exit 1) when there are warnings, e.g. in CI")
	paths, err := parseFlags(fs, args, validateSynopsis, true, stdout)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return usagef("at least one PATH is required")
	}
	set, err := readInputs(paths, stdin, stderr)
	if err != nil {
		return err
	}
	warnings := merge.Diagnose(set)
	printWarnings(stderr, warnings)
	v1 := validateKuadrant(set, stderr)
	eg, err := validateEnvoyGateway(set, stderr)
	if err != nil {
		return err
	}
	if err := strictError(*strict, append(append(warnings, v1...), eg...)); err != nil {
		return err
	}
	summary := fmt.Sprintf("%d Gateways, %d HTTPRoutes, %d RateLimitPolicies, %d Namespaces",
		len(set.Gateways), len(set.HTTPRoutes), len(set.Policies), len(set.Namespaces))
	if n := len(set.PoliciesV1); n > 0 {
		summary += fmt.Sprintf(", %d kuadrant.io/v1 RateLimitPolicies", n)
	}
	if n := len(set.BackendTrafficPolicies); n > 0 {
		summary += fmt.Sprintf(", %d BackendTrafficPolicies", n)
	}
	if n := len(set.PluginConfigs); n > 0 {
		summary += fmt.Sprintf(", %d PluginConfigs", n)
	}
	if n := len(set.LimitLists); n > 0 {
		summary += fmt.Sprintf(", %d limits files", n)
	}
	_, err = fmt.Fprintln(stdout, summary+": valid")
	return err
}
