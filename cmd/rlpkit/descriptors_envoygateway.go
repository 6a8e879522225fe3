package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/envoygateway"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policytest"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// envoyGatewayDescriptors is what descriptors prints for BackendTrafficPolicy inputs: the
// same shape as for a PluginConfig (of the first rate-limit call), plus the route Envoy
// takes and every call.
type envoyGatewayDescriptors struct {
	// Policy is the xDS route's name, null when no route matched.
	Policy *string `json:"policy"`
	// Domain, Descriptors and HitsAddend are the first call's.
	Domain      string              `json:"domain"`
	Descriptors []rlsmsg.Descriptor `json:"descriptors"`
	HitsAddend  uint32              `json:"hits_addend"`
	// Listener and VirtualHost took the request; Route says where its rate limits come from.
	Listener    string     `json:"listener"`
	VirtualHost string     `json:"virtualHost"`
	Route       *routeInfo `json:"route"`
	// Calls are every rate-limit call when the request arrives, Done those when the
	// response is done (rules with a response cost).
	Calls []callInfo `json:"calls"`
	Done  []callInfo `json:"done"`
	// Local is the local rate limit's view of the request; null when the route has none.
	Local *envoygateway.LocalRequest `json:"local"`
}

type routeInfo struct {
	HTTPRoute      string `json:"httpRoute"`
	Rule           int    `json:"rule"`
	Match          int    `json:"match"`
	Policy         string `json:"policy,omitempty"`
	Parent         string `json:"mergedInto,omitempty"`
	Level          string `json:"level,omitempty"`
	DirectResponse uint32 `json:"directResponse,omitempty"`
}

type callInfo struct {
	Filter      string              `json:"filter"`
	Domain      string              `json:"domain"`
	Descriptors []rlsmsg.Descriptor `json:"descriptors"`
	HitsAddend  uint32              `json:"hits_addend"`
	Rules       []string            `json:"rules"`
}

// describeWithEnvoyGateway prints what Envoy, configured by Envoy Gateway from the
// BackendTrafficPolicies of set, does with the request on Gateway --gateway.
func (f *descriptorsFlags) describeWithEnvoyGateway(set *policy.Set, stdout, stderr io.Writer) error {
	if err := checkName("--gateway", policy.KindGateway, f.gateway, set); err != nil {
		return err
	}
	res, err := envoygateway.Compile(set)
	if err != nil {
		return err
	}
	printWarnings(stderr, envoyGatewayWarnings(set, res))
	if n := len(set.Policies) + len(set.PoliciesV1); n > 0 {
		fmt.Fprintf(stderr, "warning: with BackendTrafficPolicies among the inputs, descriptors evaluates what Envoy Gateway configures; %d RateLimitPolicies left out\n", n)
	}
	gw := res.Gateway(f.gateway)
	if gw == nil {
		return fmt.Errorf("--gateway %s: no such Gateway among the inputs; %s", f.gateway, inInputs(policy.KindGateway, f.gateway, set))
	}
	req, err := f.request()
	if err != nil {
		return err
	}
	ev := gw.Evaluate(req, f.port())
	if f.explain {
		fmt.Fprintln(stderr, strings.Join(ev.Trace, "\n"))
	}
	js, err := json.MarshalIndent(egOutput(ev), "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s\n", js)
	return err
}

// request builds the descriptor request of the flags.
func (f *descriptorsFlags) request() (*descriptor.Request, error) {
	req := &descriptor.Request{Method: f.method, Host: f.host, Path: f.path, Headers: f.headers, RemoteAddress: f.remote, HitsAddend: uint32(f.hits)}
	if f.metadataFile != "" {
		md, err := loadMetadata(f.metadataFile)
		if err != nil {
			return nil, err
		}
		req.DynamicMetadata = md
	}
	return req, nil
}

// port returns the listener port of the request: the authority's, else the scheme's
// (80, 443), else 0 (Evaluate's default).
func (f *descriptorsFlags) port() int32 {
	if i := strings.LastIndexByte(f.host, ':'); i >= 0 && !strings.HasSuffix(f.host, "]") {
		if p, err := strconv.Atoi(f.host[i+1:]); err == nil {
			return int32(p)
		}
	}
	u, err := url.Parse(f.rawURL)
	if err != nil {
		return 0
	}
	switch u.Scheme {
	case "http":
		return 80
	case "https":
		return 443
	}
	return 0
}

func egOutput(ev *envoygateway.Evaluation) envoyGatewayDescriptors {
	out := envoyGatewayDescriptors{Descriptors: []rlsmsg.Descriptor{}, Listener: ev.Listener, VirtualHost: ev.VirtualHost,
		Calls: calls(ev.Calls), Done: calls(ev.Done), Local: ev.Local}
	if rt := ev.Route; rt != nil {
		name := rt.Name
		out.Policy = &name
		out.Route = &routeInfo{HTTPRoute: rt.HTTPRoute, Rule: rt.Rule, Match: rt.Match, Policy: rt.Policy, Parent: rt.Parent, Level: rt.Level, DirectResponse: rt.DirectResponse}
	}
	if len(ev.Calls) > 0 {
		c := ev.Calls[0].Request
		out.Domain, out.Descriptors, out.HitsAddend = c.Domain, c.Descriptors, c.HitsAddend
	}
	return out
}

func calls(cs []envoygateway.Call) []callInfo {
	out := []callInfo{}
	for _, c := range cs {
		out = append(out, callInfo{Filter: c.Filter, Domain: c.Request.Domain, Descriptors: c.Request.Descriptors, HitsAddend: c.Request.HitsAddend, Rules: c.Rules})
	}
	return out
}

// envoyGatewayTarget returns the policytest target of Gateway gateway compiled from the
// BackendTrafficPolicies of set, for simulate; the statuses that are not Accepted are
// warnings.
func envoyGatewayTarget(set *policy.Set, gateway string, stderr io.Writer) (*policytest.Target, error) {
	if err := checkName("--gateway", policy.KindGateway, gateway, set); err != nil {
		return nil, err
	}
	res, err := envoygateway.Compile(set)
	if err != nil {
		return nil, err
	}
	printWarnings(stderr, envoyGatewayWarnings(set, res))
	if res.Gateway(gateway) == nil {
		return nil, fmt.Errorf("--gateway %s: no such Gateway among the inputs; %s", gateway, inInputs(policy.KindGateway, gateway, set))
	}
	return policytest.EnvoyGatewayTarget(set, gateway)
}
