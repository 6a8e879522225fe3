// Package llm_test runs the LLM example's PolicyTest, so that CI checks what its token
// budgets do: a tenant's check at the request and the report of its usage after the
// response.
package llm_test

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
