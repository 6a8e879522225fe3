// Package envoyratelimit_test runs the example's PolicyTest, so that CI checks what the
// route configuration's rate-limit actions and the envoyproxy/ratelimit configuration do
// together, and checks that the test notices a change to any limit.
package envoyratelimit_test

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

// TestEveryLimitIsCovered changes each requests_per_unit of ratelimit.yaml by one, in a
// copy of the example, and wants a case of policytest.yaml to fail each time.
func TestEveryLimitIsCovered(t *testing.T) {
	config, err := os.ReadFile("ratelimit.yaml")
	if err != nil {
		t.Fatal(err)
	}
	value := regexp.MustCompile(`requests_per_unit: (\d+)`)
	matches := value.FindAllSubmatchIndex(config, -1)
	if len(matches) != 4 {
		t.Fatalf("ratelimit.yaml has %d limits, want 4", len(matches))
	}
	for k, m := range matches {
		n, _ := strconv.Atoi(string(config[m[2]:m[3]]))
		changed := string(config[:m[2]]) + strconv.Itoa(n+1) + string(config[m[3]:])
		t.Run(strconv.Itoa(k), func(t *testing.T) {
			if examplemut.FailedCases(t, "ratelimit.yaml", []byte(changed), "route.yaml") == 0 {
				t.Errorf("limit %d changed to %d: every case of policytest.yaml still passes", k, n+1)
			}
		})
	}
}
