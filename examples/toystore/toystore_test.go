// Package toystore_test runs the example's PolicyTest, so that CI checks what the toystore
// policies do, and checks that the test notices a change to any limit of the example.
package toystore_test

import (
	"flag"
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/rlpkit/rlpkit/examples/internal/examplemut"
	"github.com/rlpkit/rlpkit/policytest"
)

// -update rewrites policytest.yaml's expectations (policytest.Run reads this flag).
var _ = flag.Bool("update", false, "rewrite the expectations of policytest.yaml")

func TestPolicies(t *testing.T) {
	policytest.Run(t, ".")
}

// TestEveryLimitIsCovered changes each max_value and seconds of policies.yaml by one, in a
// copy of the example, and wants a case of policytest.yaml to fail each time, except for the
// route's default admin limit (100 a minute): the Gateway's override (50 a minute, same
// conditions and seconds) replaces it, so its max_value changes nothing, and with seconds 61
// it becomes a limit of its own that never decides (a 61-second window spans at most two
// minutes, 100 requests, when the override has decided already). There, no case may fail.
func TestEveryLimitIsCovered(t *testing.T) {
	policies, err := os.ReadFile("policies.yaml")
	if err != nil {
		t.Fatal(err)
	}
	value := regexp.MustCompile(`(?m)^(\s*(?:max_value|seconds): )(\d+)$`)
	matches := value.FindAllSubmatchIndex(policies, -1)
	if len(matches) != 8 {
		t.Fatalf("policies.yaml has %d max_value and seconds fields, want the 8 of its 4 rate limits", len(matches))
	}
	overridden := map[int]bool{0: true, 1: true} // default/toystore spec.default.rateLimits[0]
	for i, m := range matches {
		n, _ := strconv.Atoi(string(policies[m[4]:m[5]]))
		changed := string(policies[:m[4]]) + strconv.Itoa(n+1) + string(policies[m[5]:])
		line := 1 + len(regexp.MustCompile("\n").FindAllIndex(policies[:m[0]], -1))
		t.Run("policies.yaml:"+strconv.Itoa(line), func(t *testing.T) {
			failed := examplemut.FailedCases(t, "policies.yaml", []byte(changed), "gateway.yaml", "httproute.yaml")
			switch {
			case overridden[i] && failed > 0:
				t.Errorf("%s changed to %d: %d cases fail, want none: the override decides", policies[m[2]:m[3]], n+1, failed)
			case !overridden[i] && failed == 0:
				t.Errorf("%s changed to %d: every case of policytest.yaml still passes", policies[m[2]:m[3]], n+1)
			}
		})
	}
}
