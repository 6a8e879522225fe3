package rlsmsg

import (
	"bytes"
	"errors"
	"strings"
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

// decodedAlike holds the outcome err of decoding b (from in, a copy of b)
// as message top to proto.Unmarshal's protoErr: both fail, err being a
// *DecodeError with a path from top, or both succeed. It then overwrites
// in, so that a decoded message pointing into its input would show, and
// returns true for the caller to compare the messages.
func decodedAlike(t testing.TB, b, in []byte, err, protoErr error, top string) bool {
	t.Helper()
	if (err != nil) != (protoErr != nil) {
		t.Fatalf("decoding %s %x: error %v, proto.Unmarshal error %v", top, short(b), err, protoErr)
	}
	if err != nil {
		var de *DecodeError
		if !errors.As(err, &de) || !strings.HasPrefix(de.Field, top) {
			t.Errorf("decoding %s %x: error %#v, want a *DecodeError with a path from %s", top, short(b), err, top)
		}
		return false
	}
	for i := range in {
		in[i] = 0xff
	}
	return true
}

// short returns b, or its start when it is too long to print.
func short(b []byte) []byte { return b[:min(len(b), 64)] }
