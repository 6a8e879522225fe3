package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A file that cannot be opened is reported with the command that failed,
// by every subcommand that opens one itself.
func TestFileErrorsNameTheCommand(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"test", "nonexist"}, "rlpkit test: stat nonexist: no such file or directory"},
		{[]string{"test", "-update", "nonexist"}, "rlpkit test: stat nonexist: "},
		{[]string{"serve", "--limits", "nonexist", "--http-addr", "off"}, "rlpkit serve: open nonexist: "},
		{[]string{"descriptors", "--config", "nonexist", "--url", "http://a/"}, "rlpkit descriptors: open nonexist: "},
		{[]string{"compile", "nonexist"}, "rlpkit compile: nonexist: stat: no such file or directory"},
		{[]string{"validate", "nonexist"}, "rlpkit validate: nonexist: stat: "},
		{[]string{"serve", "nonexist", "--addr", "127.0.0.1:0", "--http-addr", "off"}, "rlpkit serve: nonexist: stat: "},
		{[]string{"descriptors", "--gateway", "a/b", "nonexist", "--url", "http://a/"}, "rlpkit descriptors: nonexist: stat: "},
		{[]string{"simulate", "--gateway", "a/b", "nonexist", "--log", "x"}, "rlpkit simulate: nonexist: stat: "},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, strings.NewReader(""), &stdout, &stderr)
		if code != exitInvalid || !strings.HasPrefix(stderr.String(), tc.want) {
			t.Errorf("rlpkit %s = %d, stderr %q; want %d, stderr starting %q", strings.Join(tc.args, " "), code, stderr.String(), exitInvalid, tc.want)
		}
	}
}

// Among the problems of the inputs, the input that could not be read names
// the command, while a problem inside a file keeps its file:line form.
func TestUnreadableInputAmongProblems(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("kind: Gateway\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"validate", bad, "nonexist"}, strings.NewReader(""), &stdout, &stderr)
	lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
	if code != exitInvalid || len(lines) != 2 || !strings.HasPrefix(lines[0], bad+":1: ") || lines[1] != "rlpkit validate: nonexist: stat: no such file or directory" {
		t.Errorf("rlpkit validate = %d, stderr %q; want %d, a line %q then the unreadable input named with the command", code, stderr.String(), exitInvalid, bad+":1: ...")
	}
}
