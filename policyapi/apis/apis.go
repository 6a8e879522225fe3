// Package apis lists the policy APIs rlpkit reads and selects those an input holds: it is
// the one place that decides which APIs a set of objects is compiled with. It sits above
// the implementations (packages merge, kuadrant and envoygateway), which import the
// contract in package policyapi.
//
// An input holding policies of several APIs is compiled by each; one holding no policy at
// all is compiled by apim.kuadrant.io/v1alpha1's, whose output then shows each Gateway with
// no rate-limit policy.
package apis

import (
	"slices"

	"github.com/rlpkit/rlpkit/envoygateway"
	"github.com/rlpkit/rlpkit/kuadrant"
	"github.com/rlpkit/rlpkit/merge"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policyapi"
)

// Options are the settings of the APIs that have any.
type Options struct {
	// Merge are apim.kuadrant.io/v1alpha1's (the PluginConfig's upstream cluster and
	// failure mode).
	Merge merge.Options
	// Kuadrant are kuadrant.io/v1's (kuadrant-operator's settings).
	Kuadrant kuadrant.Options
}

// All returns every API rlpkit reads, in the order their sections print.
func All(opts Options) []policyapi.API {
	return []policyapi.API{merge.API{Options: opts.Merge}, kuadrant.API{Options: opts.Kuadrant}, envoygateway.API{}}
}

// Select returns the APIs whose policies set holds, in All's order; when set holds no
// policy, the first API (apim.kuadrant.io/v1alpha1).
func Select(set *policy.Set, opts Options) []policyapi.API {
	all := All(opts)
	var out []policyapi.API
	for _, api := range all {
		if api.Policies(set) > 0 {
			out = append(out, api)
		}
	}
	if len(out) == 0 {
		out = all[:1]
	}
	return out
}

// ByFormat returns the API that has the output format format (policyapi.API.Formats), and
// false when none has it.
func ByFormat(format string, opts Options) (policyapi.API, bool) {
	for _, api := range All(opts) {
		if slices.Contains(api.Formats(), format) {
			return api, true
		}
	}
	return nil, false
}

// Formats returns every output format of every API, in All's order.
func Formats() []string {
	var out []string
	for _, api := range All(Options{}) {
		out = append(out, api.Formats()...)
	}
	return out
}
