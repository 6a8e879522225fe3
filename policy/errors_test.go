package policy

import (
	"errors"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/rlpkit/rlpkit/fielderr"
)

// TestErrorsAs: a located problem wraps the problem as the package that
// found it reported it, so errors.As reaches a limits file's or a
// PluginConfig's *fielderr.Error and a policy's *field.Error.
func TestErrorsAs(t *testing.T) {
	t.Run("limits file", func(t *testing.T) {
		_, err := Decode("limits.yaml", []byte("- {namespace: n, max_value: 1, seconds: 0, conditions: [], variables: []}\n"))
		var fe *fielderr.Error
		if !errors.As(err, &fe) || fe.Pkg != "limit" || fe.Field != "[0].seconds" {
			t.Errorf("errors.As(%v, *fielderr.Error) = %v, want limit's [0].seconds", err, fe)
		}
		var pe *Error
		if !errors.As(err, &pe) || pe.Line != 1 || pe.Err != fe {
			t.Errorf("errors.As(%v, *policy.Error) = %+v, want line 1 wrapping the field error", err, pe)
		}
	})
	t.Run("PluginConfig", func(t *testing.T) {
		_, err := Decode("config.yaml", []byte("rateLimitPolicies:\n- {upstreamCluster: rl, hostnames: ['*']}\n"))
		var fe *fielderr.Error
		if !errors.As(err, &fe) || fe.Pkg != "descriptor" || fe.Field != "rateLimitPolicies[0].rateLimitDomain" {
			t.Errorf("errors.As(%v, *fielderr.Error) = %v, want descriptor's rateLimitPolicies[0].rateLimitDomain", err, fe)
		}
	})
	t.Run("RateLimitPolicy", func(t *testing.T) {
		_, err := Decode("p.yaml", []byte(`apiVersion: apim.kuadrant.io/v1alpha1
kind: RateLimitPolicy
metadata: {name: p, namespace: default}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}
  default:
    rateLimits: [{max_value: 1, seconds: 0}]
`))
		var fe *field.Error
		if !errors.As(err, &fe) || fe.Field != "spec.default.rateLimits[0].seconds" {
			t.Errorf("errors.As(%v, *field.Error) = %v, want spec.default.rateLimits[0].seconds", err, fe)
		}
	})
}
