package apis

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policyapi"
)

// read reads the example directories dirs (under examples/) into one set.
func read(t *testing.T, dirs ...string) *policy.Set {
	t.Helper()
	var paths []string
	for _, d := range dirs {
		paths = append(paths, filepath.Join("..", "..", "examples", d))
	}
	set, err := policy.Read(paths, nil)
	if err != nil {
		t.Fatalf("Read(%v): %v", paths, err)
	}
	return set
}

func names(list []policyapi.API) []string {
	var out []string
	for _, api := range list {
		out = append(out, api.Name())
	}
	return out
}

// Select picks the APIs whose policies an input holds, in All's order; an input with no
// policy is apim.kuadrant.io/v1alpha1's.
func TestSelect(t *testing.T) {
	v1alpha1, v1, eg := "apim.kuadrant.io/v1alpha1 RateLimitPolicy", "kuadrant.io RateLimitPolicy and TokenRateLimitPolicy", "gateway.envoyproxy.io/v1alpha1 BackendTrafficPolicy"
	for _, tc := range []struct {
		dirs []string
		want []string
	}{
		{[]string{"toystore"}, []string{v1alpha1}},
		{[]string{"kuadrant"}, []string{v1}},
		{[]string{"envoy-gateway"}, []string{eg}},
		{[]string{"envoy-gateway", "kuadrant", "toystore"}, []string{v1alpha1, v1, eg}},
	} {
		if got := names(Select(read(t, tc.dirs...), Options{})); !slices.Equal(got, tc.want) {
			t.Errorf("Select(%v) = %q, want %q", tc.dirs, got, tc.want)
		}
	}
	// A TokenRateLimitPolicy alone is kuadrant.io's, compiled by the same API.
	trlp, err := policy.Decode("trlp.yaml", []byte("apiVersion: kuadrant.io/v1alpha1\nkind: TokenRateLimitPolicy\nmetadata: {name: t, namespace: ns}\nspec:\n  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}\n  limits: {tokens: {rates: [{limit: 10, window: 1m}]}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := names(Select(trlp, Options{})); !slices.Equal(got, []string{v1}) {
		t.Errorf("Select(TokenRateLimitPolicy) = %q, want %q", got, v1)
	}
	// AuthPolicies without a rate-limit policy are kuadrant.io's too: the operator writes
	// their auth actions.
	auth, err := policy.Decode("auth.yaml", []byte("apiVersion: kuadrant.io/v1\nkind: AuthPolicy\nmetadata: {name: a, namespace: ns}\nspec:\n  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}\n  rules: {authentication: {keys: {apiKey: {selector: {}}}}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := names(Select(auth, Options{})); !slices.Equal(got, []string{v1}) {
		t.Errorf("Select(AuthPolicy) = %q, want %q", got, v1)
	}
	if got := names(Select(&policy.Set{}, Options{})); !slices.Equal(got, []string{v1alpha1}) {
		t.Errorf("Select(empty) = %q, want %q", got, v1alpha1)
	}
	if api, ok := ByFormat("kuadrant", Options{}); !ok || api.Name() != v1 {
		t.Errorf("ByFormat(kuadrant) = %v, %v", api, ok)
	}
	if _, ok := ByFormat("toml", Options{}); ok {
		t.Error("ByFormat(toml) found an API")
	}
}

// Every API keeps the contract on its example: statuses for its policies, sorted; an
// output that encodes; a data plane for every Gateway its statuses name, whose config
// encodes and which describes a request.
func TestContract(t *testing.T) {
	for _, dir := range []string{"toystore", "kuadrant", "envoy-gateway"} {
		set := read(t, dir)
		for _, api := range Select(set, Options{}) {
			t.Run(dir, func(t *testing.T) {
				c, err := api.Compile(set)
				if err != nil {
					t.Fatal(err)
				}
				st := c.Statuses()
				if len(st) == 0 || !slices.IsSortedFunc(st, func(a, b policyapi.PolicyStatus) int {
					return strings.Compare(a.Name+" "+a.Ancestor, b.Name+" "+b.Ancestor)
				}) {
					t.Errorf("statuses %+v: want some, sorted", st)
				}
				// Every status has conditions, and every policy an Accepted condition on some
				// ancestor: Envoy Gateway writes an ancestor with only a Merged condition (a
				// merged route policy's listener).
				accepted := map[string]bool{}
				for _, s := range st {
					if len(s.Conditions) == 0 {
						t.Errorf("status %+v: want conditions", s)
					}
					accepted[s.Name] = accepted[s.Name] || s.Condition("Accepted") != nil
				}
				for name, ok := range accepted {
					if !ok {
						t.Errorf("policy %s: no Accepted condition on any ancestor", name)
					}
				}
				for _, f := range append([]string{""}, api.Formats()...) {
					out, _, err := c.Output(f)
					if err != nil {
						t.Fatalf("Output(%q): %v", f, err)
					}
					if _, err := json.Marshal(out); err != nil {
						t.Errorf("Output(%q) does not encode: %v", f, err)
					}
				}
				if _, _, err := c.Output("no-such-format"); err == nil {
					t.Error("Output(no-such-format): no error")
				}
				gws := 0
				for _, gw := range set.Gateways {
					plane, ok := c.Gateway(gw.Namespace + "/" + gw.Name)
					if !ok {
						continue
					}
					gws++
					if _, err := json.Marshal(plane.Config()); err != nil {
						t.Errorf("Gateway %s: config does not encode: %v", gw.Name, err)
					}
					if tg, ok := plane.(policyapi.Target); ok {
						f, limits, err := tg.Target()
						if err != nil || f == nil || len(limits) == 0 {
							t.Errorf("Gateway %s: Target = %v, %d limits, %v", gw.Name, f, len(limits), err)
						}
					}
					out, trace, err := plane.Describe(&policyapi.Request{Method: "GET", Scheme: "http", Host: "example.com", Path: "/"}, true)
					if err != nil || out == nil || trace == "" {
						t.Errorf("Gateway %s: Describe = %v, %q, %v", gw.Name, out, trace, err)
					}
				}
				if gws == 0 {
					t.Error("no Gateway of the inputs has a data plane")
				}
				if _, ok := c.Gateway("no/such-gateway"); ok {
					t.Error("Gateway(no/such-gateway) found one")
				}
			})
		}
	}
}

// With Served (a cluster's installed CRDs), Select gives every served API, with or without
// policies, and no API that is not served, whatever the set holds.
func TestSelectServed(t *testing.T) {
	v1alpha1, v1 := "apim.kuadrant.io/v1alpha1 RateLimitPolicy", "kuadrant.io RateLimitPolicy and TokenRateLimitPolicy"
	served := func(names ...string) func(string) bool {
		return func(name string) bool { return slices.Contains(names, name) }
	}
	for _, tc := range []struct {
		dirs   []string
		served []string
		want   []string
	}{
		{[]string{"toystore"}, []string{v1alpha1, v1}, []string{v1alpha1, v1}},
		{[]string{"kuadrant"}, []string{v1}, []string{v1}},
		{[]string{"kuadrant"}, []string{v1alpha1}, []string{v1alpha1}},
		{[]string{"envoy-gateway", "kuadrant"}, []string{v1alpha1, v1}, []string{v1alpha1, v1}},
		{nil, nil, nil},
	} {
		set := &policy.Set{}
		if tc.dirs != nil {
			set = read(t, tc.dirs...)
		}
		if got := names(Select(set, Options{Served: served(tc.served...)})); !slices.Equal(got, tc.want) {
			t.Errorf("Select(%v, served %q) = %q, want %q", tc.dirs, tc.served, got, tc.want)
		}
	}
}
