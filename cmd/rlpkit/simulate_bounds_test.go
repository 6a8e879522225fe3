package main

import (
	"io"
	"strings"
	"testing"

	"github.com/rlpkit/rlpkit/inputlimit"
)

// TestReplayLineBound: an access-log line longer than inputlimit's limit is
// refused at its line, with the limit, before it reaches the simulator.
func TestReplayLineBound(t *testing.T) {
	log := "\n" + strings.Repeat("x", inputlimit.MaxLineBytes+1) + "\n"
	err := replay(nil, strings.NewReader(log), "access.log", false, io.Discard)
	const want = "access.log:2: the line is longer than the limit of 1048576 bytes (1 MiB)"
	if err == nil || err.Error() != want {
		t.Fatalf("replay = %v, want %s", err, want)
	}
}
