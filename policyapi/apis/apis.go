// Package apis lists the policy APIs rlpkit reads and selects those an input holds: it is
// the one place that decides which APIs a set of objects is compiled with. It sits above
// the implementations (packages merge, kuadrant and envoygateway), which import the
// contract in package policyapi.
//
// An input holding policies of several APIs is compiled by each; one holding AuthPolicies
// and no rate-limit policy by kuadrant.io's (the operator writes their auth actions all the
// same); one holding no policy at all by apim.kuadrant.io/v1alpha1's, whose output then
// shows each Gateway with no rate-limit policy.
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
	// Served, when not nil, says which APIs the input's source serves, by
	// policyapi.API.Name: a cluster serves the APIs whose CRD is installed, and reads no
	// other. Select then also returns every served API whose policies the set does not
	// hold, and never one that is not served.
	Served func(name string) bool
}

// All returns every API rlpkit reads, in the order their sections print.
func All(opts Options) []policyapi.API {
	return []policyapi.API{merge.API{Options: opts.Merge}, kuadrant.API{Options: opts.Kuadrant}, envoygateway.API{}}
}

// Select returns the APIs whose policies set holds, in All's order; when set holds no
// rate-limit policy, kuadrant.io's when it holds AuthPolicies, else the first API
// (apim.kuadrant.io/v1alpha1).
//
// With opts.Served, it returns the APIs the source serves, in All's order, whether or not
// set holds their policies, and none it does not serve: a cluster that serves an API's
// CRD uses the API, and its Gateways' outputs say so (an API with no policy compiles to
// configurations without policies, so that a deleted policy's limits go), while files
// show an API only by its objects.
func Select(set *policy.Set, opts Options) []policyapi.API {
	all := All(opts)
	var out []policyapi.API
	for _, api := range all {
		if opts.Served != nil && !opts.Served(api.Name()) {
			continue
		}
		if opts.Served != nil || api.Policies(set) > 0 {
			out = append(out, api)
		}
	}
	if len(out) == 0 && opts.Served == nil {
		out = all[:1]
		if len(set.AuthPolicies) > 0 {
			out = all[1:2]
		}
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
