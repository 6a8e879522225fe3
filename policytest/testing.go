package policytest

import (
	"flag"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rlpkit/rlpkit/inputlimit"
)

// updateFlag reports whether the test binary has a boolean -update flag, the convention for
// golden files, and it was given. The package declares no flag itself, so that it never
// clashes with a test package's own -update.
func updateFlag() bool {
	f := flag.Lookup("update")
	if f == nil {
		return false
	}
	on, _ := strconv.ParseBool(f.Value.String())
	return on
}

// Run runs every PolicyTest under paths (files or directories) as subtests of t: one per
// file, one per case within it, so that "go test -run TestPolicies/toystore.yaml/admin"
// selects a case. A failed expectation fails its case with the same messages as "rlpkit
// test"; with -v the case logs which policy, rules, descriptor and limit decided each step.
// When the test binary declares a boolean -update flag and it is given, the expectations of
// the cases that ran are rewritten in place.
func Run(t *testing.T, paths ...string) {
	t.Helper()
	files, err := Files(paths)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, file := range files {
		data, err := inputlimit.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		tests, err := Decode(file, data)
		if err != nil {
			t.Error(err)
			continue
		}
		if len(tests) == 0 {
			continue
		}
		found = true
		t.Run(filepath.Base(file), func(t *testing.T) {
			var updates []caseUpdate
			for _, pt := range tests {
				target, err := pt.load()
				if err != nil {
					t.Error(err)
					continue
				}
				for i := range pt.Spec.Cases {
					c := &pt.Spec.Cases[i]
					name := c.Name
					if len(tests) > 1 {
						name = pt.Metadata.Name + "/" + c.Name
					}
					t.Run(name, func(t *testing.T) {
						r := pt.RunCase(target, c)
						t.Log("\n" + strings.TrimSuffix(r.Explain, "\n"))
						for _, f := range r.Failures {
							t.Error(f)
						}
						updates = append(updates, caseUpdate{test: pt, index: i, result: r})
					})
				}
			}
			if updateFlag() && len(updates) > 0 {
				changed, err := rewrite(file, data, updates)
				if err != nil {
					t.Fatal(err)
				}
				if changed {
					t.Logf("updated %s", file)
				}
			}
		})
	}
	if !found {
		t.Fatalf("no PolicyTest under %s", strings.Join(paths, " "))
	}
}
