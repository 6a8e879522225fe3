package inputlimit_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlpkit/rlpkit/inputlimit"
	"github.com/rlpkit/rlpkit/inputlimit/inputlimittest"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	at := filepath.Join(dir, "at.yaml")
	over := filepath.Join(dir, "over.yaml")
	if err := os.WriteFile(at, make([]byte, inputlimit.MaxBytes), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(over, make([]byte, inputlimit.MaxBytes+1), 0o600); err != nil {
		t.Fatal(err)
	}
	if data, err := inputlimit.ReadFile(at); err != nil || len(data) != inputlimit.MaxBytes {
		t.Fatalf("ReadFile(at the limit) = %d bytes, %v; want all of it", len(data), err)
	}
	_, err := inputlimit.ReadFile(over)
	var le *inputlimit.Error
	if !errors.As(err, &le) || err.Error() != over+": the size, 16777217 bytes, exceeds the limit of 16777216 bytes (16 MiB)" {
		t.Fatalf("ReadFile(over the limit) = %v, want an *Error naming the file and the limit", err)
	}
	if _, err := inputlimit.ReadFile(filepath.Join(dir, "none")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("ReadFile(missing) = %v, want os.ErrNotExist", err)
	}
}

func TestReadAll(t *testing.T) {
	_, err := inputlimit.ReadAll(strings.NewReader(inputlimittest.Padding()), "<stdin>")
	if err == nil || err.Error() != "<stdin>: the size, more than 16777216 bytes, exceeds the limit of 16777216 bytes (16 MiB)" {
		t.Fatalf("ReadAll(too much) = %v", err)
	}
	if data, err := inputlimit.ReadAll(strings.NewReader("a: 1\n"), "<stdin>"); err != nil || string(data) != "a: 1\n" {
		t.Fatalf("ReadAll = %q, %v", data, err)
	}
}

func TestCheckJSON(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"at the depth limit", inputlimittest.Nested(inputlimit.MaxDepth), ""},
		{"too deep", "{\"a\":\n" + inputlimittest.Nested(inputlimit.MaxDepth) + "}", "x.json: line 2: nesting exceeds the limit of 1000 levels"},
		{"brackets in strings do not count", `["` + strings.Repeat("[", 2000) + `\"["]`, ""},
		{"too large", inputlimittest.BigString(), "x.json: the size, 16777218 bytes, exceeds the limit of 16777216 bytes (16 MiB)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := inputlimit.CheckJSON("x.json", []byte(tc.in))
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Fatalf("CheckJSON = %q, want %q", got, tc.want)
			}
		})
	}
}
