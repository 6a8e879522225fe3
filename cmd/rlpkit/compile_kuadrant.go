package main

import (
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/rlpkit/rlpkit/kuadrant"
	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/merge"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policytest"
	"github.com/rlpkit/rlpkit/wasmshim"
)

// kuadrantFlags are the operator's settings, as flags of compile -o kuadrant, descriptors
// and serve.
type kuadrantFlags struct {
	authEndpoint, rlEndpoint, authMode, rlMode, authTimeout, rlTimeout *string
}

func addKuadrantFlags(fs *flag.FlagSet) *kuadrantFlags {
	return &kuadrantFlags{
		authEndpoint: fs.String("auth-endpoint", kuadrant.DefaultAuthEndpoint, "with -o kuadrant: the Envoy `cluster` of the auth service"),
		rlEndpoint:   fs.String("ratelimit-endpoint", kuadrant.DefaultRateLimitEndpoint, "with -o kuadrant: the Envoy `cluster` of Limitador"),
		authMode:     fs.String("auth-failure-mode", kuadrant.DefaultAuthFailureMode, "with -o kuadrant: deny or allow when the auth service fails (`mode`)"),
		rlMode:       fs.String("ratelimit-failure-mode", kuadrant.DefaultRateLimitFailureMode, "with -o kuadrant: deny or allow when Limitador fails (`mode`)"),
		authTimeout:  fs.String("auth-timeout", kuadrant.DefaultAuthTimeout, "with -o kuadrant: the auth service's call `timeout`"),
		rlTimeout:    fs.String("ratelimit-timeout", kuadrant.DefaultRateLimitTimeout, "with -o kuadrant: Limitador's call `timeout`"),
	}
}

// options checks the flags and returns them as kuadrant.Options.
func (f *kuadrantFlags) options() (kuadrant.Options, error) {
	for name, v := range map[string]string{"--auth-failure-mode": *f.authMode, "--ratelimit-failure-mode": *f.rlMode} {
		if v != wasmshim.FailureModeDeny && v != wasmshim.FailureModeAllow {
			return kuadrant.Options{}, usagef("%s %q: want deny or allow", name, v)
		}
	}
	for name, v := range map[string]string{"--auth-timeout": *f.authTimeout, "--ratelimit-timeout": *f.rlTimeout} {
		if d, err := time.ParseDuration(v); err != nil || d <= 0 {
			return kuadrant.Options{}, usagef("%s %q: want a positive duration such as 100ms", name, v)
		}
	}
	return kuadrant.Options{
		AuthEndpoint: *f.authEndpoint, RateLimitEndpoint: *f.rlEndpoint,
		AuthFailureMode: *f.authMode, RateLimitFailureMode: *f.rlMode,
		AuthTimeout: *f.authTimeout, RateLimitTimeout: *f.rlTimeout,
	}, nil
}

// kuadrantOutput is what compile -o kuadrant prints.
type kuadrantOutput struct {
	Gateways []kuadrant.GatewayConfig `json:"gateways"`
	Policies []policyOutput           `json:"policies"`
}

// compileKuadrant compiles the kuadrant.io/v1 RateLimitPolicies of set and prints, as
// YAML, wasm-shim's configuration and Limitador's limits per Gateway and the policies'
// statuses. Conditions that are not True are warnings on stderr; with strict they fail the
// command and nothing is printed.
func compileKuadrant(set *policy.Set, opts kuadrant.Options, strict bool, stdout, stderr io.Writer) error {
	res := kuadrant.Compile(set, opts)
	warnings := kuadrantWarnings(set, res)
	printWarnings(stderr, warnings)
	if len(set.Policies) > 0 {
		fmt.Fprintf(stderr, "warning: -o kuadrant compiles kuadrant.io/v1 RateLimitPolicies only; %d apim.kuadrant.io/v1alpha1 RateLimitPolicies left out\n", len(set.Policies))
	}
	if n := len(set.BackendTrafficPolicies); n > 0 {
		fmt.Fprintf(stderr, "warning: -o kuadrant compiles kuadrant.io/v1 RateLimitPolicies only; %d BackendTrafficPolicies left out\n", n)
	}
	if err := strictError(strict, warnings); err != nil {
		return err
	}
	out := kuadrantOutput{Gateways: res.Gateways, Policies: []policyOutput{}}
	for _, p := range res.Policies {
		po := policyOutput{Name: p.Name}
		for _, c := range p.Conditions {
			po.Conditions = append(po.Conditions, conditionOutput{Type: c.Type, Status: string(c.Status), Reason: c.Reason, Message: c.Message})
		}
		out.Policies = append(out.Policies, po)
	}
	js, err := render(out, "yaml")
	if err != nil {
		return err
	}
	_, err = stdout.Write(js)
	return err
}

// kuadrantWarnings returns a warning for every status condition that is not True, at the
// policy's line: "file:line: RateLimitPolicy ns/name: field: Reason: message".
func kuadrantWarnings(set *policy.Set, res *kuadrant.Result) []merge.Warning {
	return policytest.KuadrantWarnings(set, res)
}

// kuadrantLimits returns the Limitador limits compiled from the kuadrant.io/v1
// RateLimitPolicies of set, for serve: their namespaces are routes ("ns/name"), so they
// never meet the domains of apim.kuadrant.io/v1alpha1 policies ("gw-ns/gw#ns/name").
func kuadrantLimits(set *policy.Set) []limitador.Limit {
	if len(set.PoliciesV1) == 0 {
		return nil
	}
	return kuadrant.Compile(set, kuadrant.Options{}).Limits()
}

// validateKuadrant prints the warnings of the kuadrant.io/v1 RateLimitPolicies of set (the
// statuses that are not True) and returns them, for --strict.
func validateKuadrant(set *policy.Set, stderr io.Writer) []merge.Warning {
	if len(set.PoliciesV1) == 0 {
		return nil
	}
	warnings := kuadrantWarnings(set, kuadrant.Compile(set, kuadrant.Options{}))
	printWarnings(stderr, warnings)
	return warnings
}
