package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/merge"
	"github.com/rlpkit/rlpkit/yamljson"
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
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	docs, err := yamljson.Convert(data)
	if err != nil {
		return nil, prefixLines(file, err)
	}
	var doc *yamljson.Document
	for i := range docs {
		if docs[i].Empty() {
			continue
		}
		if doc != nil {
			return nil, fmt.Errorf("%s:%d: a limits file holds one document, a list of limits", file, docs[i].StartLine)
		}
		doc = &docs[i]
	}
	if doc == nil {
		return nil, fmt.Errorf("%s: no limits in the file; write [] for none", file)
	}
	limits, err := limit.DecodeLimits(doc.JSON)
	if err == nil {
		return limits, nil
	}
	var list limit.ErrorList
	if !errors.As(err, &list) {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	lines := make([]string, len(list))
	for i, fe := range list {
		lines[i] = fmt.Sprintf("%s:%d: %s", file, doc.Line(fe.Path), fe.Error())
	}
	return nil, errors.New(strings.Join(lines, "\n"))
}
