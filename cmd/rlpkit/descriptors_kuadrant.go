package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/rlpkit/rlpkit/kuadrant"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/rlsmsg"
	"github.com/rlpkit/rlpkit/wasmshim"
)

// kuadrantDescriptors is what descriptors prints for kuadrant.io/v1 inputs: the same shape
// as for a PluginConfig (of the first rate-limit call), plus what wasm-shim chose.
type kuadrantDescriptors struct {
	// Policy is the scope of the first rate-limit call (the route), null when none.
	Policy *string `json:"policy"`
	// Domain is that call's domain.
	Domain string `json:"domain"`
	// Descriptors holds that call's one descriptor.
	Descriptors []kuadrantDescriptor `json:"descriptors"`
	// HitsAddend is the call's ratelimit.hits_addend, else --hits-addend.
	HitsAddend uint64 `json:"hits_addend"`
	// Hostname is the hostname of the configuration that matched, "" when none.
	Hostname string `json:"hostname"`
	// ActionSet is the action set that applied, null when none.
	ActionSet *actionSetRef `json:"actionSet"`
	// Calls are every service call of the action set, in order.
	Calls []wasmshim.Call `json:"calls"`
}

type kuadrantDescriptor struct {
	Entries []rlsmsg.Entry `json:"entries"`
}

type actionSetRef struct {
	Index int    `json:"index"`
	Name  string `json:"name"`
}

// gatewayEvaluator compiles the kuadrant.io/v1 policies of set and returns an evaluator of
// the wasm-shim configuration of Gateway ns/name. Statuses that are not True are warnings.
func gatewayEvaluator(set *policy.Set, gateway string, opts kuadrant.Options, stderr io.Writer) (*wasmshim.Evaluator, error) {
	res := kuadrant.Compile(set, opts)
	printWarnings(stderr, kuadrantWarnings(set, res))
	if len(set.Policies) > 0 {
		fmt.Fprintf(stderr, "warning: with kuadrant.io/v1 RateLimitPolicies among the inputs, descriptors evaluates their wasm-shim configuration; %d apim.kuadrant.io/v1alpha1 RateLimitPolicies left out\n", len(set.Policies))
	}
	for _, gw := range res.Gateways {
		if gw.Gateway == gateway {
			return wasmshim.New(&gw.Wasm)
		}
	}
	return nil, fmt.Errorf("--gateway %s: no such Gateway among the inputs; %s", gateway, inInputs(policy.KindGateway, gateway, set))
}

// describeKuadrant evaluates a request and prints the result; with explain, the trace goes
// to stderr.
func describeKuadrant(ev *wasmshim.Evaluator, req *wasmshim.Request, hits uint64, explain bool, stdout, stderr io.Writer) error {
	res := ev.Evaluate(req)
	if explain {
		fmt.Fprint(stderr, res.Explain())
	}
	out := kuadrantDescriptors{Descriptors: []kuadrantDescriptor{}, HitsAddend: hits, Hostname: res.Hostname, Calls: res.Calls}
	if out.Calls == nil {
		out.Calls = []wasmshim.Call{}
	}
	if res.ActionSet >= 0 {
		out.ActionSet = &actionSetRef{Index: res.ActionSet, Name: res.ActionSetName}
	}
	for _, c := range res.Calls {
		if c.Type != wasmshim.ServiceRateLimit {
			continue
		}
		scope := c.Domain
		out.Policy, out.Domain = &scope, c.Domain
		out.Descriptors = append(out.Descriptors, kuadrantDescriptor{Entries: c.Entries})
		if c.HitsAddend > 0 {
			out.HitsAddend = c.HitsAddend
		}
		break
	}
	js, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s\n", js)
	return err
}
