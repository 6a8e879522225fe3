package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/rlpkit/rlpkit/merge"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policyapi"
)

// Exit codes, the same for every subcommand.
const (
	exitOK      = 0 // success
	exitInvalid = 1 // invalid input: the errors are on stderr
	exitUsage   = 2 // the command line itself is wrong
)

const usage = `rlpkit: rate-limit policy for Gateway API and Envoy

Usage:
  rlpkit compile [-o yaml|json|envoy|kuadrant|envoy-gateway] [--split DIR] [--upstream-cluster NAME] [--failure-mode-deny] [--explain ns/route] [--strict] PATH...
      Merge RateLimitPolicies along Gateway -> HTTPRoute; print each Gateway's PluginConfig
      and limits, and every policy's status.
  rlpkit descriptors (--config PLUGINCONFIG | --gateway ns/name PATH...) --url URL [--method M] [-H 'Name: value']...
                     [--remote-address IP] [--metadata FILE.json] [--explain]
      Print the RLS descriptors a rate-limit filter generates for a request.
  rlpkit validate [--strict] PATH...
      Check Gateways, HTTPRoutes, RateLimitPolicies and Namespaces; print every problem.
  rlpkit serve (--limits FILE|DIR | PATH...) [--addr 127.0.0.1:8081] [--http-addr 127.0.0.1:8080] [--redis URL]
               [--response-headers]
      Serve Envoy's Rate Limit Service over gRPC, enforcing the limits of a limits file or of
      a compiled topology, with counters in memory or in Redis; reload them when they change.
  rlpkit test [-run REGEX] [-update] [-v] PATH...
      Run the PolicyTests in PATH: requests through the compiled descriptors and limits on a
      simulated clock, checked against the expected descriptors and decisions.
  rlpkit simulate (--gateway ns/name PATH... | --config F --limits F) --log FILE [-o text|json]
                  [--html FILE] [--explain]
      Replay an Envoy access log through the policies; print per limit what it admitted and
      rejected, and optionally a timeline page.

Routes that attach to no Gateway and policies that apply to no request are warnings on
stderr ("warning: file:line: Kind ns/name: field.path: why; what to do"); with --strict,
compile and validate fail on them.

Run "rlpkit COMMAND -h" for a command's flags.
Exit status: 0 success, 1 invalid input (or warnings with --strict), 2 usage error.
`

// run is the whole program: it parses args (without the program name), does the work and
// returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	var cmd func([]string, io.Reader, io.Writer, io.Writer) int
	switch args[0] {
	case "descriptors":
		cmd = runDescriptors
	case "validate":
		cmd = runValidate
	case "compile":
		cmd = runCompile
	case "serve":
		cmd = runServe
	case "test":
		cmd = runTest
	case "simulate":
		cmd = runSimulate
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	default:
		fmt.Fprintf(stderr, "rlpkit: unknown command %q\n\n%s", args[0], usage)
		return exitUsage
	}
	return cmd(args[1:], stdin, stdout, stderr)
}

// usageError is a problem with the command line; it exits 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

// errHelp says help was asked for and printed: exit 0.
var errHelp = errors.New("help printed")

// usageLines are the first lines of the synopses, printed with a usage error.
var usageLines = map[string]string{
	"compile":     firstLine(compileSynopsis),
	"descriptors": firstLine(descriptorsSynopsis),
	"validate":    firstLine(validateSynopsis),
	"serve":       firstLine(serveSynopsis),
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// exitFor prints err for the command name and returns the exit status it means.
func exitFor(name string, err error, stderr io.Writer) int {
	var ue *usageError
	switch {
	case err == nil, errors.Is(err, errHelp):
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "rlpkit %s: %s\n", name, ue.msg)
		if line, ok := usageLines[name]; ok {
			fmt.Fprintf(stderr, "Usage: %s\n", line)
		}
		fmt.Fprintf(stderr, "Run \"rlpkit %s -h\" for usage.\n", name)
		return exitUsage
	}
	if problems, ok := err.(policy.Errors); ok {
		// The problems of the inputs, one a line: each input that could not be read is named
		// with the command, as any other file error is.
		for _, p := range problems {
			printError(name, p, stderr)
		}
		return exitInvalid
	}
	printError(name, err, stderr)
	return exitInvalid
}

// printError prints err on its own line, after "rlpkit NAME: " when namesNoCommand.
func printError(name string, err error, stderr io.Writer) {
	if namesNoCommand(err) {
		fmt.Fprintf(stderr, "rlpkit %s: %v\n", name, err)
		return
	}
	fmt.Fprintln(stderr, err)
}

// namesNoCommand reports whether err is a file that could not be opened,
// read or walked, whose message names the file and the operation but not
// the command that failed: exitFor puts the command first, before the
// file and the message. Input errors (file:line: message) keep their form,
// which editors and CI parse.
func namesNoCommand(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && !strings.HasPrefix(err.Error(), "rlpkit ")
}

// parseFlags parses args into fs and returns the positional arguments; flags may come
// before and after them, and "--" ends the flags. On -h it prints synopsis and the flags to
// stdout and returns errHelp; a bad flag is a usage error, and so is a positional argument
// when positional is false.
func parseFlags(fs *flag.FlagSet, args []string, synopsis string, positional bool, stdout io.Writer) ([]string, error) {
	fs.SetOutput(io.Discard)
	var positionals []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprintf(stdout, "Usage: %s\n\nFlags:\n", synopsis)
				fs.SetOutput(stdout)
				fs.PrintDefaults()
				return nil, errHelp
			}
			return nil, usagef("%v", err)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			positionals = append(positionals, rest...)
			break
		}
		positionals = append(positionals, rest[0])
		args = rest[1:]
	}
	if !positional && len(positionals) > 0 {
		return nil, usagef("unexpected argument %q", positionals[0])
	}
	return positionals, nil
}

// parsePaths is parseFlags for a command that needs at least one PATH: none is a usage
// error.
func parsePaths(fs *flag.FlagSet, args []string, synopsis string, stdout io.Writer) ([]string, error) {
	paths, err := parseFlags(fs, args, synopsis, true, stdout)
	if err == nil && len(paths) == 0 {
		err = usagef("at least one PATH is required")
	}
	return paths, err
}

// newFlagSet returns a flag set for parseFlags.
func newFlagSet(name string) *flag.FlagSet {
	return flag.NewFlagSet("rlpkit "+name, flag.ContinueOnError)
}

// printWarnings prints each warning on its own line after "warning: ".
func printWarnings(stderr io.Writer, warnings []merge.Warning) {
	for _, w := range warnings {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
}

// strictError is what --strict makes of warnings: an error (exit 1) when there are any.
func strictError(strict bool, warnings []merge.Warning) error {
	switch {
	case !strict || len(warnings) == 0:
		return nil
	case len(warnings) == 1:
		return errors.New("--strict: 1 warning (above); fix it, or drop --strict to accept it")
	}
	return fmt.Errorf("--strict: %d warnings (above); fix them, or drop --strict to accept them", len(warnings))
}

// checkName checks that the value of flag is "namespace/name"; when it is not, the usage
// error lists the objects of kind in set, closest first.
func checkName(flag, kind, value string, set *policy.Set) error {
	ns, name, ok := strings.Cut(value, "/")
	if ok && ns != "" && name != "" && !strings.Contains(name, "/") {
		return nil
	}
	return usagef("%s %q: expected namespace/name; %s", flag, value, inInputs(kind, value, set))
}

// inInputs lists the valid objects of kind in set, closest to name first.
func inInputs(kind, name string, set *policy.Set) string {
	names := policyapi.Candidates(set, kind, name)
	const most = 10
	switch {
	case len(names) == 0:
		return fmt.Sprintf("there is no valid %s in the inputs", kind)
	case len(names) > most:
		return fmt.Sprintf("%ss in the inputs: %s and %d more", kind, strings.Join(names[:most], ", "), len(names)-most)
	}
	return fmt.Sprintf("%ss in the inputs: %s", kind, strings.Join(names, ", "))
}
