package main

import (
	"bytes"
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
	} {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, strings.NewReader(""), &stdout, &stderr)
		if code != exitInvalid || !strings.HasPrefix(stderr.String(), tc.want) {
			t.Errorf("rlpkit %s = %d, stderr %q; want %d, stderr starting %q", strings.Join(tc.args, " "), code, stderr.String(), exitInvalid, tc.want)
		}
	}
}
