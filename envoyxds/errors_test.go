package envoyxds

import (
	"errors"
	"testing"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/fielderr"
)

// TestErrorsAs: a refusal is a *fielderr.Error of this package, and the
// refusal of an invalid PluginConfig wraps descriptor's own problem.
func TestErrorsAs(t *testing.T) {
	cfg := &descriptor.PluginConfig{RateLimitPolicies: []descriptor.Policy{{UpstreamCluster: "rl", Hostnames: []string{"*"}}}}
	_, err := Translate(cfg, Options{})
	var fe *fielderr.Error
	if !errors.As(err, &fe) {
		t.Fatalf("errors.As(%v, *fielderr.Error) = false, want true", err)
	}
	if fe.Pkg != "envoyxds" || fe.Field != "rateLimitPolicies[0].rateLimitDomain" {
		t.Errorf("refusal = {Pkg: %q, Field: %q}, want {envoyxds, rateLimitPolicies[0].rateLimitDomain}", fe.Pkg, fe.Field)
	}
	var cause *fielderr.Error
	if !errors.As(fe.Unwrap(), &cause) || cause.Pkg != "descriptor" || cause.Error() != "descriptor: rateLimitPolicies[0].rateLimitDomain: required" {
		t.Errorf("refusal's cause = %v, want descriptor's problem", fe.Unwrap())
	}
}
