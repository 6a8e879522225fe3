package policytest

import (
	"github.com/rlpkit/rlpkit/policyapi"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// The kind and apiVersion of a PolicyTest document (package policy skips them).
const (
	Kind       = "PolicyTest"
	APIVersion = "rlpkit.dev/v1alpha1"
)

// PolicyTest is one test document: the inputs to compile and the cases to run against them.
type PolicyTest struct {
	// APIVersion MUST be rlpkit.dev/v1alpha1.
	APIVersion string `json:"apiVersion"`
	// Kind MUST be PolicyTest.
	Kind string `json:"kind"`
	// Metadata names the test.
	Metadata Metadata `json:"metadata"`
	// Spec is what the test runs.
	Spec Spec `json:"spec"`
}

// Metadata names a PolicyTest.
type Metadata struct {
	// Name is the test's name, required; it appears in every message about the test.
	Name string `json:"name"`
}

// Spec names the inputs of a test and its cases. It takes Inputs and Gateway, or
// PluginConfig and Limits, or Envoy (with Domain and Gateway when needed).
type Spec struct {
	// Inputs are files and directories of Gateway API objects, RateLimitPolicies and
	// Namespaces, relative to the test file, read as "rlpkit compile" reads them (a PolicyTest
	// among them is skipped, so "." names the test's own directory).
	// +optional
	Inputs []string `json:"inputs,omitempty"`
	// Gateway is the "namespace/name" of the Gateway whose compiled PluginConfig and limits
	// the cases run against; required with Inputs. With Envoy, it picks the Gateway of
	// "rlpkit compile -o envoy" output that holds several.
	// +optional
	Gateway string `json:"gateway,omitempty"`
	// PluginConfig is a PluginConfig file (either schema), relative to the test file.
	// +optional
	PluginConfig string `json:"pluginConfig,omitempty"`
	// Limits is a limits file in limitador's format, relative to the test file; required with
	// PluginConfig. A limit without a name is reported as "limits[i]".
	// +optional
	Limits string `json:"limits,omitempty"`
	// Envoy are files and directories, relative to the test file, holding an Envoy route
	// configuration (a RouteConfiguration, or "rlpkit compile -o envoy" output) and the
	// envoyproxy/ratelimit configuration files its descriptors are decided by; each
	// document is recognised by its keys (see LoadEnvoy). A step's limit names a rule of
	// that configuration: its rate_limit name, else its path below the domain
	// ("key_value.key").
	// +optional
	Envoy []string `json:"envoy,omitempty"`
	// Domain is the rate-limit domain of the filter reading the route configuration, when
	// the inputs name no rate-limit HTTP filter; default: the only domain of the
	// envoyproxy/ratelimit configuration.
	// +optional
	Domain string `json:"domain,omitempty"`
	// Start is the simulated instant every case starts at, RFC 3339; default
	// 2024-01-01T00:00:00Z, where windows of a minute, an hour and a day begin.
	// +optional
	Start string `json:"start,omitempty"`
	// Cases are run each on its own, with fresh counters.
	Cases []Case `json:"cases"`
}

// Case is one request, the descriptors it should produce, and the decisions it should get
// when sent at the steps' instants.
type Case struct {
	// Name identifies the case within the test: non-empty, unique, without spaces or "/".
	Name string `json:"name"`
	// Request is the HTTP request the case sends.
	Request Request `json:"request"`
	// Descriptors, when set, are the descriptors the request must produce, in order, as
	// "rlpkit descriptors" prints them; [] means none (the service is not called).
	// +optional
	Descriptors *[]rlsmsg.Descriptor `json:"descriptors,omitempty"`
	// Steps send the request on the simulated clock and check each decision.
	// +optional
	Steps []Step `json:"steps,omitempty"`
}

// Request is an HTTP request, as a proxy sees it.
type Request struct {
	// Method defaults to GET.
	// +optional
	Method string `json:"method,omitempty"`
	// URL is absolute: http://api.toystore.com/admin?x=1. Its host is the authority unless
	// Headers has a Host.
	URL string `json:"url"`
	// Headers are the request headers, name to value.
	// +optional
	Headers map[string]string `json:"headers,omitempty"`
	// RemoteAddress is the client address (IP, optionally with port).
	// +optional
	RemoteAddress string `json:"remoteAddress,omitempty"`
	// Metadata is the request's dynamic metadata: namespace to struct.
	// +optional
	Metadata map[string]map[string]any `json:"metadata,omitempty"`
	// HitsAddend is the request-level cost; 0 means unset (1).
	// +optional
	HitsAddend uint32 `json:"hitsAddend,omitempty"`
	// Attributes are the auth.* attributes an AuthPolicy would give kuadrant.io/v1
	// predicates and counters (rlpkit runs no auth service), by dotted name:
	// {"auth.identity.userid": "alice"}. Other attributes come from the fields above.
	// PluginConfigs and apim.kuadrant.io/v1alpha1 policies do not read them.
	// +optional
	Attributes map[string]any `json:"attributes,omitempty"`
}

// Step sends the case's request Repeat times at one instant and checks the decisions.
type Step struct {
	// At is when: "+10s" is 10 seconds after the previous step (or the start), "90s" is 90
	// seconds after the start; Go duration syntax. Default "+0s".
	// +optional
	At string `json:"at,omitempty"`
	// Repeat is how many times the request is sent; default 1.
	// +optional
	Repeat int `json:"repeat,omitempty"`
	// Want is the expected decision of every repetition: OK or OVER_LIMIT.
	Want string `json:"want"`
	// Limit is the name of the limit that decided the last repetition: the first over, or
	// else the one with the least remaining.
	// +optional
	Limit *string `json:"limit,omitempty"`
	// Remaining is that limit's remaining hits after the last repetition.
	// +optional
	Remaining *uint32 `json:"remaining,omitempty"`
	// Reset is the time until that limit's counter resets, after the last repetition.
	// +optional
	Reset *string `json:"reset,omitempty"`
	// Statuses, when set, are the expected statuses of the last repetition, one per
	// descriptor in order.
	// +optional
	Statuses []Status `json:"statuses,omitempty"`
	// Headers are request headers this step's requests carry over the case's, name to
	// value (a header of the case with the same name, in any case, is replaced): another
	// tenant, say, on the same counters as the case's requests.
	// +optional
	Headers map[string]string `json:"headers,omitempty"`
	// Attributes are auth.* attributes this step's requests carry over the case's (an
	// attribute of the case with the same name is replaced): another user, say, signed in
	// through the AuthPolicy on the same route.
	// +optional
	Attributes map[string]any `json:"attributes,omitempty"`
	// Usage is what the response to each repetition reports, which the calls made once
	// the response is done read (a kuadrant.io TokenRateLimitPolicy's report, or an Envoy
	// Gateway rule's cost.response from Envoy AI Gateway's metadata), charged only when
	// the request was admitted; unset, those calls are not made.
	// +optional
	Usage *Usage `json:"usage,omitempty"`
}

// Usage is a response's usage: exactly one of Tokens and Body, and its status.
type Usage struct {
	// Tokens is the total tokens the response reports; for Kuadrant, as the body
	// {"usage": {"total_tokens": N}} would; for Envoy AI Gateway, the value it writes
	// under io.envoy.ai_gateway for every key a rule's cost.response reads there.
	// +optional
	Tokens *uint64 `json:"tokens,omitempty"`
	// Body is the response body, JSON, read by the report's expression (wasm-shim's
	// responseBodyJSON("/usage/total_tokens")); Envoy AI Gateway reads its
	// usage.total_tokens.
	// +optional
	Body string `json:"body,omitempty"`
	// Status is the response's HTTP status, 100 to 599; default 200. Envoy AI Gateway
	// writes its token metadata only at the end of a 2xx response, so another status
	// charges nothing; wasm-shim's report reads the body whatever the status.
	// +optional
	Status int `json:"status,omitempty"`
}

// response returns the usage as the contract's Response.
func (u *Usage) response() *policyapi.Response {
	if u.Tokens != nil {
		return &policyapi.Response{Tokens: u.Tokens, Status: u.Status}
	}
	return &policyapi.Response{Body: []byte(u.Body), Status: u.Status}
}

// Status is the expected answer for one descriptor.
type Status struct {
	// Want is OK or OVER_LIMIT.
	Want string `json:"want"`
	// Limit is the name of the descriptor's current limit; "" when none applies.
	// +optional
	Limit *string `json:"limit,omitempty"`
	// Remaining is the current limit's remaining hits.
	// +optional
	Remaining *uint32 `json:"remaining,omitempty"`
	// Reset is the time until the current limit's counter resets.
	// +optional
	Reset *string `json:"reset,omitempty"`
}
