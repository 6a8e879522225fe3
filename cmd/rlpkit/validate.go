package main

import (
	"fmt"
	"io"

	"github.com/rlpkit/rlpkit/policy"
)

const validateSynopsis = `rlpkit validate PATH...

Reads Gateways, HTTPRoutes, RateLimitPolicies and Namespaces from files, directories
(every *.yaml, *.yml and *.json, recursively) and "-" (stdin), and prints every problem on
stderr, one a line, as file:line: Kind namespace/name: field.path: what is wrong.
Exit status 0 when everything is valid, 1 when anything is not.`

// runValidate implements "rlpkit validate".
func runValidate(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return exitFor("validate", validate(args, stdin, stdout), stderr)
}

func validate(args []string, stdin io.Reader, stdout io.Writer) error {
	fs := newFlagSet("validate")
	paths, err := parseFlags(fs, args, validateSynopsis, true, stdout)
	if err != nil {
		return err
	}
	if len(paths) == 0 {
		return usagef("at least one PATH is required")
	}
	set, err := policy.Read(paths, stdin)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%d Gateways, %d HTTPRoutes, %d RateLimitPolicies, %d Namespaces: valid\n",
		len(set.Gateways), len(set.HTTPRoutes), len(set.Policies), len(set.Namespaces))
	return err
}
