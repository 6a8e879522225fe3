// Package envoygateway_test runs the example's PolicyTest, so that CI checks what the shop's
// BackendTrafficPolicies do, and checks that the test notices a change to any limit.
package envoygateway_test

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

// TestEveryLimitIsCovered changes each requests of policies.yaml by one, in a copy of the
// example, and wants a case of policytest.yaml to fail each time.
func TestEveryLimitIsCovered(t *testing.T) {
	policies, err := os.ReadFile("policies.yaml")
	if err != nil {
		t.Fatal(err)
	}
	value := regexp.MustCompile(`requests: (\d+)`)
	matches := value.FindAllSubmatchIndex(policies, -1)
	if len(matches) != 4 {
		t.Fatalf("policies.yaml has %d limits, want 4", len(matches))
	}
	for _, m := range matches {
		n, _ := strconv.Atoi(string(policies[m[2]:m[3]]))
		changed := string(policies[:m[2]]) + strconv.Itoa(n+1) + string(policies[m[3]:])
		t.Run(string(policies[m[0]:m[1]]), func(t *testing.T) {
			if examplemut.FailedCases(t, "policies.yaml", []byte(changed), "gateway.yaml") == 0 {
				t.Errorf("requests changed to %d: every case of policytest.yaml still passes", n+1)
			}
		})
	}
}
