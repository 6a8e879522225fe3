package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/merge"
)

// limitSource is where serve's limits come from: a limits file or a topology.
type limitSource struct {
	file  string   // a limits file in limitador's format, or ""
	paths []string // else the topology's files and directories
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
	if s.file != "" {
		return "limits file " + s.file
	}
	return "topology " + strings.Join(s.paths, " ")
}

// load reads and validates the limits. Every problem is reported, one a line.
func (s limitSource) load() ([]limit.Limit, error) {
	if s.file != "" {
		return loadLimitsFile(s.file)
	}
	res, err := compileTopology(s.paths, nil, merge.Options{})
	if err != nil {
		return nil, err
	}
	var limits []limit.Limit
	for _, gw := range res.Gateways {
		limits = append(limits, gw.Limits...)
	}
	if err := limit.ValidateLimits(limits); err != nil {
		return nil, fmt.Errorf("the compiled limits are invalid:\n%w", err)
	}
	return limits, nil
}

// loadLimitsFile reads a limits file in limitador's format, YAML or JSON: one
// document holding a list of limits. Problems are reported as
// "file:line: limit: [i].field: what is wrong", one a line.
func loadLimitsFile(file string) ([]limit.Limit, error) {
	doc, err := readDocument(file, "a limits file holds one document, a list of limits", "no limits in the file; write [] for none")
	if err != nil {
		return nil, err
	}
	limits, err := limit.DecodeLimits(doc.JSON)
	if err == nil {
		return limits, nil
	}
	var list limit.ErrorList
	if !errors.As(err, &list) {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return nil, locate(file, doc, list, func(e *limit.FieldError) string { return e.Path })
}
