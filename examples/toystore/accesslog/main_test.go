package main

import (
	"bytes"
	"os"
	"testing"
)

// TestShippedLog wants examples/toystore/access.log to be what this command writes, so the
// documented command regenerates it.
func TestShippedLog(t *testing.T) {
	var b bytes.Buffer
	write(&b)
	shipped, err := os.ReadFile("../access.log")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(shipped, b.Bytes()) {
		t.Errorf("examples/toystore/access.log differs from what the command writes: run go run ./examples/toystore/accesslog > examples/toystore/access.log")
	}
}
