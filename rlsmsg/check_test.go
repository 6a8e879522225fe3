package rlsmsg

import (
	"bytes"
	"testing"
)

// checkAppend holds an encoder to want, proto.Marshal's bytes: appendTo
// appends the encoding to the bytes it is given, which it must keep, and
// size is what the encoder's size function says.
func checkAppend(t testing.TB, want []byte, appendTo func([]byte) []byte, size int) {
	t.Helper()
	prefix := []byte("prefix")
	got := appendTo(append([]byte(nil), prefix...))
	if !bytes.HasPrefix(got, prefix) {
		t.Fatalf("the encoder lost the bytes it appends to: %q", got)
	}
	if got = got[len(prefix):]; !bytes.Equal(got, want) {
		t.Errorf("encoded\n%x\nwant (proto.Marshal)\n%x", got, want)
	}
	if size != len(want) {
		t.Errorf("size %d, want %d", size, len(want))
	}
}
