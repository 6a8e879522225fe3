package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/rlpkit/rlpkit/inputlimit"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policytest"
)

const simulateSynopsis = `rlpkit simulate (--gateway ns/name PATH... | --config PLUGINCONFIG --limits FILE | --envoy [--domain D] [--gateway ns/name] PATH...) --log FILE [-o text|json] [--html FILE] [--explain]

Replays an Envoy access log (JSON lines, or Envoy's default text format, where the client is
the first X-Forwarded-For entry; a JSON key such as "auth.identity.userid" gives that
auth.* attribute, as an AuthPolicy would; "-" reads stdin) through the descriptors and limits of a
compiled Gateway (apim.kuadrant.io/v1alpha1 or kuadrant.io/v1 policies, as rlpkit test
reads them; with Envoy Gateway BackendTrafficPolicies, what Envoy Gateway configures:
routes, rate-limit service and local rate limits, a limit per rule, its namespace the
rule's domain or "local") or of a PluginConfig and a limits file, with counters in memory on a clock
driven by the log's start times. With --envoy the PATHs hold an Envoy route configuration
and envoyproxy/ratelimit configuration files, recognised by their keys as rlpkit test reads
a PolicyTest's spec.envoy: virtual_hosts (a RouteConfiguration), route_configuration, or
the gateways of compile -o envoy (--gateway picks one) make the route configuration, whose
rate-limit actions Envoy's way build the descriptors; domain makes an envoyproxy/ratelimit
file, whose rules decide (each a limit, named by its name or its path below the domain);
--domain is the rate-limit filter's domain when the route configuration names no filter
(default: the only domain configured); any other file is an error. Prints, per limit, the requests it applied to, how many were
admitted, how many it rejected, how many another limit rejected (limited elsewhere), when
it first rejected one and its peak requests per second. A JSON line's total_tokens field
(a whole number, e.g. written from %DYNAMIC_METADATA(io.envoy.ai_gateway:llm_total_token)%)
is the response's usage: a kuadrant.io/v1alpha1 TokenRateLimitPolicy checks each request
(Limitador's CheckRateLimit) and reports that usage after an admitted one; a line without
it makes no report. With Envoy Gateway, a rule's cost.response read from
io.envoy.ai_gateway charges it after an admitted request whose response_code (the line's,
default 200) is 2xx, as Envoy AI Gateway writes it only then.
-o json prints {"requests": N, "limits": [{"namespace", "name", "max_value", "seconds",
"requests", "admitted", "limited", "limited_elsewhere", "first_limited", "peak_per_second"}]}. --html writes a
self-contained page with a timeline per limit (and of the tokens charged on it); --explain writes, for every line, what decided
it to stderr. The log is streamed: memory does not grow with its length.`

// runSimulate implements "rlpkit simulate".
func runSimulate(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return exitFor("simulate", simulate(args, stdin, stdout, stderr), stderr)
}

func simulate(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("simulate")
	gateway := fs.String("gateway", "", "compile the topology in PATH... and replay against Gateway `ns/name`")
	config := fs.String("config", "", "the PluginConfig `file` (with --limits)")
	limitsFile := fs.String("limits", "", "the limits `file` in limitador's format (with --config)")
	logFile := fs.String("log", "", "the access log `file`; - for stdin")
	output := fs.String("o", "text", "output `format`: text or json")
	htmlFile := fs.String("html", "", "write a timeline page per limit to `file`")
	explain := fs.Bool("explain", false, "write what decided every line to stderr")
	envoy := fs.Bool("envoy", false, "the PATHs are an Envoy route configuration and envoyproxy/ratelimit configuration files")
	domain := fs.String("domain", "", "with --envoy, the rate-limit `domain` of a route configuration that names no filter")
	paths, err := parseFlags(fs, args, simulateSynopsis, true, stdout)
	if err != nil {
		return err
	}
	switch {
	case *envoy && (*config != "" || *limitsFile != ""):
		return usagef("--envoy reads the PATHs; --config and --limits go without it")
	case *envoy && len(paths) == 0:
		return usagef("--envoy needs the PATH... of the route configuration and the envoyproxy/ratelimit files")
	case !*envoy && *domain != "":
		return usagef("--domain goes with --envoy")
	case *envoy:
	case (*gateway == "") == (*config == ""):
		return usagef("exactly one of --gateway and --config is required")
	case *gateway != "" && len(paths) == 0:
		return usagef("--gateway needs the PATH... of the topology to compile")
	case *config != "" && len(paths) > 0:
		return usagef("unexpected argument %q: with --config, the PluginConfig and --limits are the inputs", paths[0])
	case *config != "" && *limitsFile == "":
		return usagef("--config needs --limits")
	case *gateway != "" && *limitsFile != "":
		return usagef("--limits goes with --config; with --gateway the limits are compiled")
	case *logFile == "":
		return usagef("--log is required")
	case *output != "text" && *output != "json":
		return usagef("-o %q: want text or json", *output)
	}
	var target *policytest.Target
	if *envoy {
		target, err = policytest.LoadEnvoy(paths, policytest.EnvoyOptions{Gateway: *gateway, Domain: *domain})
	} else {
		target, err = simulateTarget(*gateway, paths, *config, *limitsFile, stdin, stderr)
	}
	if err != nil {
		return err
	}
	sim, err := policytest.NewSimulator(target)
	if err != nil {
		return err
	}
	in := stdin
	if *logFile != "-" {
		f, err := os.Open(*logFile)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	if err := replay(sim, in, *logFile, *explain, stderr); err != nil {
		return err
	}
	report := sim.Report()
	if err := checkReport(&report, *logFile, stderr); err != nil {
		return err
	}
	if *htmlFile != "" {
		if err := writeHTML(*htmlFile, &report); err != nil {
			return err
		}
	}
	if *output == "json" {
		return printReportJSON(stdout, &report)
	}
	return printReportText(stdout, &report)
}

// simulateTarget reads the inputs as descriptors and serve do: a PluginConfig and a limits
// file, or the topology in paths compiled for gateway (notices and warnings to stderr).
func simulateTarget(gateway string, paths []string, config, limitsFile string, stdin io.Reader, stderr io.Writer) (*policytest.Target, error) {
	if config != "" {
		engine, err := loadPluginConfig(config)
		if err != nil {
			return nil, err
		}
		limits, warnings, err := loadLimitsFile(limitsFile)
		if err != nil {
			return nil, err
		}
		for _, w := range warnings {
			fmt.Fprintf(stderr, "warning: %s\n", w)
		}
		return policytest.NewTarget(policytest.EngineFrontend(engine), limits), nil
	}
	set, err := readInputs(paths, stdin, stderr)
	if err != nil {
		return nil, err
	}
	if err := checkName("--gateway", policy.KindGateway, gateway, set); err != nil {
		return nil, err
	}
	target, err := policytest.CompileSet(set, gateway)
	if err != nil {
		return nil, fmt.Errorf("--gateway %s: %w", gateway, err)
	}
	printWarnings(stderr, target.Warnings)
	return target, nil
}

// checkReport says when a replay tested nothing: a log without requests is an error, and a
// replay where no request reached a limit is a warning on stderr.
func checkReport(r *policytest.Report, name string, stderr io.Writer) error {
	if r.Requests == 0 {
		return fmt.Errorf("%s: no request in the log: nothing to replay", name)
	}
	for _, ls := range r.Limits {
		if ls.Requests > 0 {
			return nil
		}
	}
	fmt.Fprintf(stderr, "warning: no limit applied to any of the %d requests of %s: check the log's hosts and paths against the inputs (--explain says, line by line, what decided)\n", r.Requests, name)
	return nil
}

// replay streams the log through sim, line by line. With a terminal on stderr, a progress
// line is redrawn there at most every 200ms.
func replay(sim *policytest.Simulator, in io.Reader, name string, explain bool, stderr io.Writer) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), inputlimit.MaxLineBytes)
	progress := isTerminal(stderr)
	var entry policytest.LogEntry
	last := time.Now()
	ew := bufio.NewWriter(stderr)
	defer ew.Flush()
	n := 1
	for ; sc.Scan(); n++ {
		line := sc.Bytes()
		if len(line) == 0 {
			continue
		}
		if err := policytest.ParseLogLine(line, &entry); err != nil {
			return fmt.Errorf("%s:%d: %v", name, n, err)
		}
		d, err := sim.Replay(&entry)
		if err != nil {
			return fmt.Errorf("%s:%d: %v", name, n, err)
		}
		if explain {
			fmt.Fprintf(ew, "%s:%d: %s %s%s from %s: %s: %s\n", name, n, entry.Method, entry.Authority, entry.Path, entry.Client, d.Code, sim.Explain(&d))
		}
		if progress && n%4096 == 0 && time.Since(last) > 200*time.Millisecond {
			last = time.Now()
			fmt.Fprintf(stderr, "\r%s: line %d, %s", name, n, entry.Time.UTC().Format(time.RFC3339))
		}
	}
	if progress {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return fmt.Errorf("%s:%d: the line is longer than the limit of %d bytes (1 MiB)", name, n, inputlimit.MaxLineBytes)
	} else if err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	return nil
}

// isTerminal reports whether w is a character device, a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// limitReport is one limit of -o json.
type limitReport struct {
	Namespace     string  `json:"namespace"`
	Name          string  `json:"name"`
	MaxValue      uint32  `json:"max_value"`
	Seconds       uint32  `json:"seconds"`
	Requests      int64   `json:"requests"`
	Admitted      int64   `json:"admitted"`
	Limited       int64   `json:"limited"`
	Elsewhere     int64   `json:"limited_elsewhere"`
	FirstLimited  *string `json:"first_limited"`
	PeakPerSecond int64   `json:"peak_per_second"`
	// MissingAuth counts the requests that lacked an auth.* attribute the limit reads,
	// MissingAuthAttribute names the first.
	MissingAuth          int64  `json:"missing_auth,omitempty"`
	MissingAuthAttribute string `json:"missing_auth_attribute,omitempty"`
	// Tokens is the usage charged on the limit once responses were done; absent when none.
	Tokens uint64 `json:"tokens,omitempty"`
}

func printReportJSON(w io.Writer, r *policytest.Report) error {
	out := struct {
		Requests int64         `json:"requests"`
		Limits   []limitReport `json:"limits"`
	}{Requests: r.Requests, Limits: []limitReport{}}
	for _, ls := range r.Limits {
		lr := limitReport{Namespace: ls.Limit.Namespace, Name: ls.Limit.Name, MaxValue: ls.Limit.MaxValue, Seconds: ls.Limit.Seconds,
			Requests: ls.Requests, Admitted: ls.Admitted, Limited: ls.Limited, Elsewhere: ls.LimitedElsewhere, PeakPerSecond: ls.PeakPerSecond,
			MissingAuth: ls.MissingAuth, MissingAuthAttribute: ls.MissingAuthAttribute, Tokens: ls.Tokens}
		if !ls.FirstLimited.IsZero() {
			s := ls.FirstLimited.UTC().Format(time.RFC3339Nano)
			lr.FirstLimited = &s
		}
		out.Limits = append(out.Limits, lr)
	}
	js, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", js)
	return err
}

func printReportText(w io.Writer, r *policytest.Report) error {
	fmt.Fprintf(w, "%d requests\n", r.Requests)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	// The TOKENS column shows only when some limit was charged usage after responses.
	tokens := slices.ContainsFunc(r.Limits, func(ls policytest.LimitStats) bool { return ls.Tokens > 0 })
	header := "LIMIT\tMAX/SECONDS\tREQUESTS\tADMITTED\tLIMITED\tLIMITED ELSEWHERE\tFIRST LIMITED\tPEAK/S"
	if tokens {
		header += "\tTOKENS"
	}
	fmt.Fprintln(tw, header)
	for _, ls := range r.Limits {
		first := "-"
		if !ls.FirstLimited.IsZero() {
			first = ls.FirstLimited.UTC().Format(time.RFC3339Nano)
		}
		fmt.Fprintf(tw, "%s\t%d/%ds\t%d\t%d\t%d\t%d\t%s\t%d", ls.Limit.Name, ls.Limit.MaxValue, ls.Limit.Seconds, ls.Requests, ls.Admitted, ls.Limited, ls.LimitedElsewhere, first, ls.PeakPerSecond)
		if tokens {
			fmt.Fprintf(tw, "\t%d", ls.Tokens)
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return printAuthNotes(w, r)
}

// printAuthNotes writes a note under the table for every limit that applied to no request
// while requests lacked an auth.* attribute it reads.
func printAuthNotes(w io.Writer, r *policytest.Report) error {
	for _, ls := range r.Limits {
		if ls.Requests > 0 || ls.MissingAuth == 0 {
			continue
		}
		if _, err := fmt.Fprintf(w, "note: %s applied to no request: %d of %d requests lacked %s, which it reads (an access-log field %q gives it)\n",
			ls.Limit.Name, ls.MissingAuth, r.Requests, ls.MissingAuthAttribute, ls.MissingAuthAttribute); err != nil {
			return err
		}
	}
	return nil
}
