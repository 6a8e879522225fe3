package main

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/rlpkit/rlpkit/policytest"
)

const testSynopsis = `rlpkit test [-run REGEX] [-update] [-v] PATH...

Runs every PolicyTest (rlpkit.dev/v1alpha1) in the files and directories given: each case's
request through the descriptors and limits compiled from the test's inputs (apim.kuadrant.io/v1alpha1
policies or a PluginConfig: rlpkit's descriptors; kuadrant.io/v1 policies: wasm-shim's
evaluation and Limitador's limits; spec.envoy: an Envoy route configuration evaluated as
Envoy's router and rate-limit filter do, and envoyproxy/ratelimit configuration files, each
file recognised by its keys: virtual_hosts, route_configuration or the gateways of compile
-o envoy for the route configuration, domain for a ratelimit file, anything else an error),
on a simulated clock, with fresh counters per case.
Inputs holding no RateLimitPolicy, or both APIs at once, are an error. Prints the failures as go test does, then
"N passed, M failed"; exits 1 when any case failed or a test could not run.
With -v every case is listed, with which policy, rules, descriptor and limit decided each
step; with -update the expectations of the cases run are rewritten in place, keeping
comments and order, and the command exits 0.`

// runTest implements "rlpkit test".
func runTest(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	err := policyTests(args, stdout)
	if errors.Is(err, errCasesFailed) {
		return exitInvalid
	}
	return exitFor("test", err, stderr)
}

// errCasesFailed says cases failed; the failures are printed already.
var errCasesFailed = errors.New("cases failed")

func policyTests(args []string, stdout io.Writer) error {
	fs := newFlagSet("test")
	runRE := fs.String("run", "", "run only the cases whose name (file.yaml/case) matches `regex`")
	update := fs.Bool("update", false, "rewrite the expectations with what happened")
	verbose := fs.Bool("v", false, "list every case and explain every decision")
	paths, err := parsePaths(fs, args, testSynopsis, stdout)
	if err != nil {
		return err
	}
	opts := policytest.Options{Update: *update}
	if *runRE != "" {
		if opts.Run, err = regexp.Compile(*runRE); err != nil {
			return usagef("-run: %v", err)
		}
	}
	files, err := policytest.Files(paths)
	if err != nil {
		return err
	}
	passed, failed := 0, 0
	var problems []string
	for _, file := range files {
		res, err := policytest.RunFile(file, opts)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		for i := range res.Cases {
			c := &res.Cases[i]
			switch {
			case !c.Passed():
				failed++
				printFailure(stdout, res.Names[i], c, *verbose)
			default:
				passed++
				if *verbose {
					fmt.Fprintf(stdout, "=== RUN   %s\n%s--- PASS: %s\n", res.Names[i], indent(c.Explain, "    "), res.Names[i])
				}
			}
		}
		if res.Updated {
			fmt.Fprintf(stdout, "updated %s\n", file)
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "\n"))
	}
	if passed+failed == 0 {
		return fmt.Errorf("no PolicyTest case under %s", strings.Join(paths, " "))
	}
	fmt.Fprintf(stdout, "%d passed, %d failed\n", passed, failed)
	if failed > 0 && !*update {
		return errCasesFailed
	}
	return nil
}

// printFailure prints a failed case as go test does: the first line of the first failure on
// the FAIL line, everything else indented below it.
func printFailure(w io.Writer, name string, c *policytest.CaseResult, verbose bool) {
	if verbose {
		fmt.Fprintf(w, "=== RUN   %s\n%s", name, indent(c.Explain, "    "))
	}
	head, more, _ := strings.Cut(c.Failures[0], "\n")
	fmt.Fprintf(w, "--- FAIL: %s (%s)\n", name, strings.TrimSuffix(head, ":"))
	if more != "" {
		fmt.Fprint(w, indent(more+"\n", "    "))
	}
	for _, f := range c.Failures[1:] {
		fmt.Fprint(w, indent(f+"\n", "    "))
	}
}

// indent puts prefix before every line of s.
func indent(s, prefix string) string {
	if s == "" {
		return ""
	}
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	for _, l := range lines {
		if l != "" {
			b.WriteString(prefix + l)
		}
	}
	return b.String()
}
