package main

import (
	"fmt"
	"io"

	"github.com/rlpkit/rlpkit/policy"
)

// readInputs reads the topology's inputs and prints, on stderr, a notice for every file
// (or part of one) that was skipped: other Kubernetes objects and files that are not
// Kubernetes objects. Notices are information, not warnings.
func readInputs(paths []string, stdin io.Reader, stderr io.Writer) (*policy.Set, error) {
	set, err := policy.Read(paths, stdin)
	if set != nil {
		for _, n := range set.Notices {
			fmt.Fprintln(stderr, n)
		}
	}
	return set, err
}

// identifyFile says what a file given to a flag holds, or why it cannot be told: a file
// that cannot be read or parsed is left to the flag's own reader to report.
func identifyFile(data []byte) (policy.FileContent, bool) {
	fc, err := policy.Identify(data)
	return fc, err == nil
}
