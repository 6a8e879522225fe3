package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// limitadorLimits are limits as limitador 2.x reads them: CEL over descriptors, one
// evaluation per request, names echoed in current_limit.name.
const limitadorLimits = `
- namespace: shop
  name: every request
  max_value: 100
  seconds: 31536000
- namespace: shop
  name: second descriptor
  max_value: 10
  seconds: 31536000
  conditions: ["descriptors[1]['req.method'] == 'POST'"]
  variables: ["descriptors[1]['user']"]
- namespace: shop
  name: never
  max_value: 0
  seconds: 60
  conditions: ["descriptors[0].req.method == 'POST'"]
`

// TestServeLimitadorSemantics checks that serve evaluates each limit once per request, as
// limitador does, reports each on the descriptors it read, and loads an expression that
// can never match with a warning showing the bracket form.
func TestServeLimitadorSemantics(t *testing.T) {
	file := writeFile(t, t.TempDir(), "limits.yaml", limitadorLimits)
	s := startServe(t, "--addr", "127.0.0.1:0", "--limits", file)
	checkSteps(t, s, []serveStep{
		// Three descriptors cost one hit of the limit without conditions, on the first.
		{rlsRequest("shop", 0, rlsDesc("a", "1"), rlsDesc("b", "2"), rlsDesc("c", "3")),
			[]string{"OK", `OK "every request" 100/YEAR remaining 99`, "OK unlimited", "OK unlimited"}},
		// descriptors[1] resolves, and a match there is reported on the second descriptor.
		{rlsRequest("shop", 0, rlsDesc("req.method", "GET"), rlsDesc("req.method", "POST", "user", "alice")),
			[]string{"OK", `OK "every request" 100/YEAR remaining 98`, `OK "second descriptor" 10/YEAR remaining 9`}},
		// A match in the first descriptor is not descriptors[1]; the dotted key never matches.
		{rlsRequest("shop", 0, rlsDesc("req.method", "POST", "user", "alice", "req", "x")),
			[]string{"OK", `OK "every request" 100/YEAR remaining 97`}},
	})
	want := `msg="a limit can never match" inputs="limits file ` + file + `" warning="` + file + `:16: limit: [2].conditions[0]: descriptors[0].req.method can never match: an entry's value is a string and has no fields; for a key with dots write descriptors[0]['req.method']"`
	if !strings.Contains(s.log.String(), want) {
		t.Errorf("log lacks %s:\n%s", want, s.log)
	}
}

// TestLoadLimitsFileWarnings checks that a limits file's warnings carry the file and the line.
func TestLoadLimitsFileWarnings(t *testing.T) {
	file := writeFile(t, t.TempDir(), "limits.yaml", "- namespace: shop\n  max_value: 1\n  seconds: 1\n  variables:\n  - user\n  - descriptors[1].auth.user\n")
	limits, warnings, err := loadLimitsFile(file)
	if err != nil || len(limits) != 1 {
		t.Fatalf("loadLimitsFile = %d limits, %v; want 1 limit", len(limits), err)
	}
	want := []string{file + ":6: limit: [0].variables[1]: descriptors[1].auth.user can never match: an entry's value is a string and has no fields; for a key with dots write descriptors[1]['auth.user']"}
	if diff := cmp.Diff(want, warnings); diff != "" {
		t.Errorf("loadLimitsFile warnings mismatch (-want +got):\n%s", diff)
	}
}
