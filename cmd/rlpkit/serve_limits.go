package main

import (
	"fmt"
	"log/slog"
	"strings"
	"sync"

	"github.com/rlpkit/rlpkit/configfile"
	"github.com/rlpkit/rlpkit/inputlimit"
	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policyapi/apis"
)

// limitSource is where serve's limits come from: a limits file or a topology.
type limitSource struct {
	file  string   // a limits file in limitador's format, or ""
	paths []string // else the topology's files and directories
	// notice, when set, is told of every file of the topology that was skipped, at each load
	// (see noticeLogger).
	notice func(policy.Notice)
}

// noticeLogger returns a limitSource.notice that logs each skipped file once, as compile and
// validate print it on stderr: at start-up, then only files newly skipped when the inputs
// reload, so that a reload stays one line.
func noticeLogger(log *slog.Logger) func(policy.Notice) {
	var mu sync.Mutex
	seen := map[policy.Notice]bool{}
	return func(n policy.Notice) {
		mu.Lock()
		defer mu.Unlock()
		if seen[n] {
			return
		}
		seen[n] = true
		log.Info("input skipped", "file", n.File, "skipped", n.Detail)
	}
}

// inputs returns the files and directories the limits are read from.
func (s limitSource) inputs() []string {
	if s.file != "" {
		return []string{s.file}
	}
	return s.paths
}

// String describes the source for logs.
func (s limitSource) String() string {
	if s.file != "" && isDir(s.file) {
		return "limits directory " + s.file
	}
	if s.file != "" {
		return "limits file " + s.file
	}
	return "topology " + strings.Join(s.paths, " ")
}

// load reads and validates the limits. Every problem is reported, one a line. The warnings
// name each condition or variable that loads but can never match (limitador.LimitWarnings), as
// "file:line: limit: [i].field: why" for a limits file.
func (s limitSource) load() ([]limitador.Limit, []string, error) {
	if s.file != "" && isDir(s.file) {
		return loadLimitsDir(s.file)
	}
	if s.file != "" {
		return loadLimitsFile(s.file)
	}
	if err := checkTopologyFiles(s.paths); err != nil {
		return nil, nil, err
	}
	set, err := policy.Read(s.paths, nil)
	if set != nil && s.notice != nil {
		for _, n := range set.Notices {
			s.notice(n)
		}
	}
	if err != nil {
		return nil, nil, err
	}
	var limits []limitador.Limit
	for _, api := range apis.Select(set, apis.Options{}) {
		// Each API's limits have namespaces of its own: kuadrant.io/v1's are routes
		// ("ns/name"), apim.kuadrant.io/v1alpha1's domains ("gw-ns/gw#ns/name"), so they
		// never meet.
		c, err := api.Compile(set)
		if err != nil {
			return nil, nil, err
		}
		limits = append(limits, c.Limits()...)
	}
	if err := limitador.ValidateLimits(limits); err != nil {
		return nil, nil, fmt.Errorf("the compiled limits are invalid:\n%w", err)
	}
	var warnings []string
	for _, w := range limitador.LimitWarnings(limits) {
		warnings = append(warnings, "limit: "+w.String())
	}
	return limits, warnings, nil
}

// warnLimits logs each warning of load.
func warnLimits(log *slog.Logger, src limitSource, warnings []string) {
	for _, w := range warnings {
		log.Warn("a limit can never match", "inputs", src.String(), "warning", w)
	}
}

// loadLimitsFile reads a limits file in limitador's format, YAML or JSON: one
// document holding a list of limits. Problems are reported as
// "file:line: limit: [i].field: what is wrong", one a line, and so are the warnings.
func loadLimitsFile(file string) ([]limitador.Limit, []string, error) {
	if err := checkContent(file, policy.ContentLimits,
		"--limits takes a limits file, a list of limits in limitador's format; to serve the limits of a topology, give its files as PATH... instead of --limits",
		"--limits takes a list of limits: the limits of one of its gateways; or give the topology's files as PATH... instead of --limits"); err != nil {
		return nil, nil, err
	}
	return configfile.Limits(file)
}

// decodeLimitsFile is loadLimitsFile of data, read from file (a name for messages).
func decodeLimitsFile(file string, data []byte) ([]limitador.Limit, []string, error) {
	return configfile.LimitsData(file, data)
}

// checkTopologyFiles names a file given as PATH... that is not a topology but what serve
// takes with --limits, or a PluginConfig, which serve has no use for.
func checkTopologyFiles(paths []string) error {
	for _, p := range paths {
		data, err := inputlimit.ReadFile(p)
		if err != nil {
			continue // a directory, or a file policy.Read reports
		}
		fc, ok := identifyFile(data)
		switch {
		case !ok:
		case fc.Content == policy.ContentLimits:
			return fmt.Errorf("%s: this file holds %s; give it with --limits %s", p, fc, p)
		case fc.Content == policy.ContentPluginConfig, fc.Content == policy.ContentCompileOutput:
			return fmt.Errorf("%s: this file holds %s; serve takes a limits file (--limits FILE) or the topology's Gateways, HTTPRoutes and RateLimitPolicies (PATH...)", p, fc)
		}
	}
	return nil
}
