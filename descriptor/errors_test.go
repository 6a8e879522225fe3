package descriptor

import (
	"errors"
	"strings"
	"testing"

	"github.com/rlpkit/rlpkit/fielderr"
)

// lines returns err's message one line per element without the package
// prefix, failing the test for a line that does not start with it.
func lines(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	out := strings.Split(err.Error(), "\n")
	for i, l := range out {
		rest, ok := strings.CutPrefix(l, "descriptor: ")
		if !ok {
			t.Errorf("error line %q does not start with %q", l, "descriptor: ")
		}
		out[i] = rest
	}
	return out
}

// TestErrorsAs: every problem Decode and Validate report is a
// *fielderr.Error with Pkg "descriptor", found by errors.As through the list.
func TestErrorsAs(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		wantField string
	}{
		{name: "decode", in: `{"rateLimitPolicies": [{"hostnamez": []}]}`, wantField: "rateLimitPolicies[0].hostnamez"},
		{name: "validate", in: `{"rateLimitPolicies": [{"rateLimitDomain": "d", "hostnames": ["a.example.com"]}]}`, wantField: "rateLimitPolicies[0].upstreamCluster"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := Decode([]byte(tc.in))
			if err == nil {
				err = Validate(cfg)
			}
			var fe *fielderr.Error
			if !errors.As(err, &fe) {
				t.Fatalf("errors.As(%v, *fielderr.Error) = false, want true", err)
			}
			if fe.Pkg != "descriptor" || fe.Field != tc.wantField {
				t.Errorf("first problem = {Pkg: %q, Field: %q}, want {descriptor, %q}", fe.Pkg, fe.Field, tc.wantField)
			}
			var list fielderr.List
			if !errors.As(err, &list) || len(list) == 0 {
				t.Errorf("errors.As(%v, fielderr.List) = false or empty, want the list", err)
			}
		})
	}
}
