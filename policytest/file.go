package policytest

import (
	"path/filepath"
	"regexp"

	"github.com/rlpkit/rlpkit/inputlimit"
	"github.com/rlpkit/rlpkit/policy"
)

// Files returns the files under paths that may hold PolicyTests: each path that is a file,
// and every *.yaml, *.yml and *.json under each directory, in lexical order.
func Files(paths []string) ([]string, error) {
	var files []string
	for _, p := range paths {
		found, err := policy.InputFiles(p)
		if err != nil {
			return nil, err
		}
		files = append(files, found...)
	}
	return files, nil
}

// Options says which cases to run and what to do with the results.
type Options struct {
	// Run, when set, selects the cases whose full name ("file.yaml/case", see FileResult)
	// it matches.
	Run *regexp.Regexp
	// Update rewrites the expectations of the cases run with what happened.
	Update bool
}

// FileResult is the outcome of the PolicyTests of one file.
type FileResult struct {
	// File is the test file.
	File string
	// Cases are the results of the cases run, in file order; their full names are in Names.
	Cases []CaseResult
	// Names are the cases' full names: "file.yaml/case", or "file.yaml/test/case" when the
	// file holds several PolicyTests.
	Names []string
	// Updated reports whether Update rewrote the file.
	Updated bool
}

// RunFile decodes the PolicyTests of file, compiles their inputs and runs their cases. An
// error means the file or the inputs could not be read; failed expectations are in the
// result. A file without PolicyTests gives an empty result.
func RunFile(file string, opts Options) (*FileResult, error) {
	data, err := inputlimit.ReadFile(file)
	if err != nil {
		return nil, err
	}
	tests, err := Decode(file, data)
	if err != nil {
		return nil, err
	}
	out := &FileResult{File: file}
	var updates []caseUpdate
	for _, t := range tests {
		var target *Target
		for i := range t.Spec.Cases {
			c := &t.Spec.Cases[i]
			name := t.caseName(c, len(tests))
			if opts.Run != nil && !opts.Run.MatchString(name) {
				continue
			}
			if target == nil {
				if target, err = t.load(); err != nil {
					return nil, err
				}
			}
			r := t.RunCase(target, c)
			out.Cases = append(out.Cases, r)
			out.Names = append(out.Names, name)
			updates = append(updates, caseUpdate{test: t, index: i, result: r})
		}
	}
	if opts.Update && len(updates) > 0 {
		changed, err := rewrite(file, data, updates)
		if err != nil {
			return nil, err
		}
		out.Updated = changed
	}
	return out, nil
}

// caseName is the full name of a case of t in a file holding n PolicyTests.
func (t *Test) caseName(c *Case, n int) string {
	base := filepath.Base(t.File)
	if n > 1 {
		return base + "/" + t.Metadata.Name + "/" + c.Name
	}
	return base + "/" + c.Name
}
