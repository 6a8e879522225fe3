// Package kuadrant_test runs the kuadrant.io/v1 example's PolicyTest, so that CI checks
// what its policies do, and checks that the test notices a change to any limit value.
package kuadrant_test

import (
	"flag"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/examples/internal/examplemut"
	"github.com/rlpkit/rlpkit/policytest"
)

// -update rewrites policytest.yaml's expectations (policytest.Run reads this flag).
var _ = flag.Bool("update", false, "rewrite the expectations of policytest.yaml")

func TestPolicies(t *testing.T) {
	policytest.Run(t, ".")
}

// rateValue is a rate's limit or window in policies.yaml.
var rateValue = regexp.MustCompile(`(?m)^(\s*(?:- limit|window): )(\d+)([smh]?)$`)

// TestEveryLimitValueIsCovered changes each limit and window of policies.yaml, in a copy of
// the example (a limit by one, a window by one second), and wants a case of policytest.yaml
// to fail each time.
func TestEveryLimitValueIsCovered(t *testing.T) {
	policies, err := os.ReadFile("policies.yaml")
	if err != nil {
		t.Fatal(err)
	}
	matches := rateValue.FindAllSubmatchIndex(policies, -1)
	if len(matches) != 6 {
		t.Fatalf("policies.yaml has %d limit and window fields, want the 6 of its 3 rates", len(matches))
	}
	for _, m := range matches {
		n, _ := strconv.Atoi(string(policies[m[4]:m[5]]))
		replacement := strconv.Itoa(n + 1)
		if unit := string(policies[m[6]:m[7]]); unit != "" {
			d, err := time.ParseDuration(strconv.Itoa(n) + unit)
			if err != nil {
				t.Fatal(err)
			}
			replacement = strconv.Itoa(int(d/time.Second)+1) + "s"
		}
		changed := string(policies[:m[4]]) + replacement + string(policies[m[7]:])
		line := 1 + strings.Count(string(policies[:m[0]]), "\n")
		field := strings.TrimSpace(string(policies[m[2]:m[3]]))
		t.Run("policies.yaml:"+strconv.Itoa(line), func(t *testing.T) {
			failed := examplemut.FailedCases(t, "policies.yaml", []byte(changed), "gateway.yaml", "httproutes.yaml")
			if failed == 0 {
				t.Errorf("%s changed to %s: every case of policytest.yaml still passes", field, replacement)
			}
		})
	}
}
