package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/rlpkit/rlpkit/kuadrant"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policyapi"
	"github.com/rlpkit/rlpkit/policyapi/apis"
	"github.com/rlpkit/rlpkit/wasmshim"
)

// compiledAPI is one policy API's policies of the inputs, compiled.
type compiledAPI struct {
	api policyapi.API
	policyapi.Compiled
}

// compileAPIs compiles set with each API of list, prints their warnings on stderr and
// returns them, with the warnings for --strict.
func compileAPIs(set *policy.Set, list []policyapi.API, stderr io.Writer) ([]compiledAPI, []policyapi.Warning, error) {
	var out []compiledAPI
	var warnings []policyapi.Warning
	for _, api := range list {
		c, err := api.Compile(set)
		if err != nil {
			return nil, nil, err
		}
		w := c.Warnings()
		printWarnings(stderr, w)
		warnings = append(warnings, w...)
		out = append(out, compiledAPI{api, c})
	}
	return out, warnings, nil
}

// noteLeftOut prints, for each API whose policies set holds but that is not among used, a
// warning that its policies were left out and why.
func noteLeftOut(set *policy.Set, used []policyapi.API, opts apis.Options, why string, stderr io.Writer) {
	for _, api := range apis.All(opts) {
		if slices.ContainsFunc(used, func(u policyapi.API) bool { return u.Name() == api.Name() }) {
			continue
		}
		if n := api.Policies(set); n > 0 {
			fmt.Fprintf(stderr, "warning: %s; %d %s objects left out\n", why, n, api.Name())
		}
	}
}

// gatewayOf returns the data plane of Gateway name compiled by the first of compiled that
// has it; a Gateway none has is an error naming the Gateways there are.
func gatewayOf(compiled []compiledAPI, name string, set *policy.Set) (policyapi.Gateway, error) {
	for _, c := range compiled {
		if gw, ok := c.Gateway(name); ok {
			return gw, nil
		}
	}
	return nil, fmt.Errorf("--gateway %s: no such Gateway among the inputs; %s", name, inInputs(policy.KindGateway, name, set))
}

// apiNames joins the names of list.
func apiNames(list []policyapi.API) string {
	names := make([]string, len(list))
	for i, api := range list {
		names[i] = api.Name()
	}
	return strings.Join(names, ", ")
}

// kuadrantFlags are kuadrant-operator's settings, flags of compile, descriptors and serve;
// they apply to kuadrant.io/v1 RateLimitPolicies.
type kuadrantFlags struct {
	authEndpoint, rlEndpoint, authMode, rlMode, authTimeout, rlTimeout *string
}

func addKuadrantFlags(fs *flag.FlagSet) *kuadrantFlags {
	return &kuadrantFlags{
		authEndpoint: fs.String("auth-endpoint", kuadrant.DefaultAuthEndpoint, "for kuadrant.io/v1 policies: the Envoy `cluster` of the auth service"),
		rlEndpoint:   fs.String("ratelimit-endpoint", kuadrant.DefaultRateLimitEndpoint, "for kuadrant.io/v1 policies: the Envoy `cluster` of Limitador"),
		authMode:     fs.String("auth-failure-mode", kuadrant.DefaultAuthFailureMode, "for kuadrant.io/v1 policies: deny or allow when the auth service fails (`mode`)"),
		rlMode:       fs.String("ratelimit-failure-mode", kuadrant.DefaultRateLimitFailureMode, "for kuadrant.io/v1 policies: deny or allow when Limitador fails (`mode`)"),
		authTimeout:  fs.String("auth-timeout", kuadrant.DefaultAuthTimeout, "for kuadrant.io/v1 policies: the auth service's call `timeout`"),
		rlTimeout:    fs.String("ratelimit-timeout", kuadrant.DefaultRateLimitTimeout, "for kuadrant.io/v1 policies: Limitador's call `timeout`"),
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
