package main

import (
	"fmt"
	"io"
)

const validateSynopsis = `rlpkit validate PATH...

Reads Gateways, HTTPRoutes, RateLimitPolicies and Namespaces from files, directories
(every *.yaml, *.yml and *.json, recursively) and "-" (stdin), and prints every problem on
stderr, one a line, as file:line: Kind namespace/name: field.path: what is wrong.
A PluginConfig or a limits file (limitador's format) among the inputs is checked as what
it is. Other Kubernetes objects and files that are not Kubernetes objects are skipped, with
one notice per file on stderr ("skipped deploy.yaml: apps/v1 Deployment").
Exit status 0 when everything is valid, 1 when anything is not.`

// runValidate implements "rlpkit validate".
func runValidate(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return exitFor("validate", validate(args, stdin, stdout, stderr), stderr)
}

func validate(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("validate")
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
	summary := fmt.Sprintf("%d Gateways, %d HTTPRoutes, %d RateLimitPolicies, %d Namespaces",
		len(set.Gateways), len(set.HTTPRoutes), len(set.Policies), len(set.Namespaces))
	if n := len(set.PluginConfigs); n > 0 {
		summary += fmt.Sprintf(", %d PluginConfigs", n)
	}
	if n := len(set.LimitLists); n > 0 {
		summary += fmt.Sprintf(", %d limits files", n)
	}
	_, err = fmt.Fprintln(stdout, summary+": valid")
	return err
}
