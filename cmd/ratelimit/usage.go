package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
)

// migrationGuide is where the variables are explained, beside the source.
const migrationGuide = "docs/migrating-from-envoy-ratelimit.md"

// helpArgs are the arguments that ask for the usage.
var helpArgs = []string{"-h", "-help", "--help", "help"}

// arguments handles the command line, which the reference ignores: a help
// argument prints the usage on stdout and ends the process (done, exit
// code 0); any other argument is reported on stderr and ignored, so that
// a deployment that passes some keeps starting as the reference's does.
func arguments(args []string, stdout, stderr io.Writer) (code int, done bool) {
	for _, a := range args {
		if slices.Contains(helpArgs, a) {
			usage(stdout)
			return 0, true
		}
	}
	if len(args) > 0 {
		fmt.Fprintf(stderr, "ratelimit: takes no arguments, only environment variables; ignoring %s (ratelimit --help lists the variables)\n", strings.Join(args, " "))
	}
	return 0, false
}

// usage writes what the command is, how it is configured, every variable
// it reads with its default, and where the migration guide is.
func usage(w io.Writer) {
	fmt.Fprintf(w, `Usage: ratelimit

A drop-in replacement for envoyproxy/ratelimit's /bin/ratelimit: it serves Envoy's
Rate Limit Service over gRPC (GRPC_HOST:GRPC_PORT), POST /json and GET /healthcheck
over HTTP (HOST:PORT) and /rlconfig, /stats, /metrics and /debug/pprof/ on the debug
port (DEBUG_HOST:DEBUG_PORT), with the configuration files under
RUNTIME_ROOT/RUNTIME_SUBDIRECTORY/RUNTIME_APPDIRECTORY, or over xDS with
CONFIG_TYPE=GRPC_XDS_SOTW.

It takes no arguments: it is configured by environment variables, the reference's
and rlpkit's own (RLPKIT_*). An invalid value stops it at start, naming the variable;
a variable of the reference that is not implemented is reported at start.
SIGINT or SIGTERM stops it gracefully.

What each variable does, and where it differs from envoyproxy/ratelimit:
%s in rlpkit's source.

Variables read, with their defaults:
`, migrationGuide)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, name := range slices.Sorted(maps.Keys(implemented)) {
		def := implemented[name]
		if def == "" {
			def = "(empty)"
		}
		fmt.Fprintf(tw, "  %s\t%s\n", name, def)
	}
	tw.Flush()
}
