package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// Exit codes, the same for every subcommand.
const (
	exitOK      = 0 // success
	exitInvalid = 1 // invalid input: the errors are on stderr
	exitUsage   = 2 // the command line itself is wrong
)

const usage = `rlpkit: rate-limit policy for Gateway API and Envoy

Usage:
  rlpkit compile [-o yaml|json|envoy] [--upstream-cluster NAME] [--failure-mode-deny] [--explain ns/route] PATH...
      Merge RateLimitPolicies along Gateway -> HTTPRoute; print each Gateway's PluginConfig
      and limits, and every policy's status.
  rlpkit descriptors (--config PLUGINCONFIG | --gateway ns/name PATH...) --url URL [--method M] [-H 'Name: value']...
                     [--remote-address IP] [--metadata FILE.json] [--explain]
      Print the RLS descriptors a rate-limit filter generates for a request.
  rlpkit validate PATH...
      Check Gateways, HTTPRoutes, RateLimitPolicies and Namespaces; print every problem.
  rlpkit serve (--limits FILE | PATH...) [--addr 127.0.0.1:8081] [--metrics-addr ADDR] [--redis URL]
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

Run "rlpkit COMMAND -h" for a command's flags.
Exit status: 0 success, 1 invalid input, 2 usage error.
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

// exitFor prints err for the command name and returns the exit status it means.
func exitFor(name string, err error, stderr io.Writer) int {
	var ue *usageError
	switch {
	case err == nil, errors.Is(err, errHelp):
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "rlpkit %s: %s\nRun \"rlpkit %s -h\" for usage.\n", name, ue.msg, name)
		return exitUsage
	default:
		fmt.Fprintln(stderr, err)
		return exitInvalid
	}
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

// newFlagSet returns a flag set for parseFlags.
func newFlagSet(name string) *flag.FlagSet {
	return flag.NewFlagSet("rlpkit "+name, flag.ContinueOnError)
}
