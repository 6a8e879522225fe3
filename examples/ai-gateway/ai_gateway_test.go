// Package aigateway_test runs the AI Gateway example's PolicyTest, so that CI checks what
// its token budgets do: the check at the request, the charge of the tokens AI Gateway
// writes at the end of a 2xx response, and nothing charged for an error response.
package aigateway_test

import (
	"flag"
	"testing"

	"github.com/rlpkit/rlpkit/policytest"
)

// -update rewrites policytest.yaml's expectations (policytest.Run reads this flag).
var _ = flag.Bool("update", false, "rewrite the expectations of policytest.yaml")

func TestPolicies(t *testing.T) {
	policytest.Run(t, ".")
}
