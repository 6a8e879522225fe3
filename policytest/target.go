package policytest

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/rlpkit/rlpkit/configfile"
	"github.com/rlpkit/rlpkit/limit/envoyratelimit"
	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policyapi"
	"github.com/rlpkit/rlpkit/policyapi/apis"
)

// Target is what a test or a replay runs requests against: the Frontend that builds the
// rate-limit requests (a PluginConfig's descriptor engine, a wasm-shim configuration, an
// Envoy route configuration) and the limits of the rate-limit service, with Limitador's
// semantics or, for a RateLimitTarget, envoyproxy/ratelimit's, all built by the packages
// production uses.
type Target struct {
	// Frontend builds the rate-limit requests.
	Frontend Frontend
	// Limits are the service's limits; every one has a Name (limits without one are named
	// "limits[i]" after their position), so that a decision names the limit that made it.
	Limits []limitador.Limit
	// Warnings are the compiled API's warnings about the inputs of a topology: routes that
	// attach to no Gateway, policies that apply to no request or are not accepted.
	Warnings []policyapi.Warning

	index map[limitKey]int       // of Limits, by domain and name
	rl    *envoyratelimit.Config // for an envoyproxy/ratelimit configuration, instead of Limits
	rules bool                   // the calls name their rules, Limits; a status may be a descriptor's override under a rule's name
}

// limitKey identifies a limit in a decision: the request's domain and the limit's name.
type limitKey struct{ domain, name string }

// CompileTopology reads the Gateway API objects and RateLimitPolicies in paths as "rlpkit
// compile" does (policy.Read) and returns the target of the Gateway "namespace/name" (see
// CompileSet).
func CompileTopology(paths []string, gateway string) (*Target, error) {
	set, err := policy.Read(paths, nil)
	if err != nil {
		return nil, err
	}
	return CompileSet(set, gateway)
}

// CompileSet returns the target of the Gateway "namespace/name" of set, compiled by the
// one policy API the set holds (apis.Select): apim.kuadrant.io/v1alpha1 RateLimitPolicies
// through merge.Compile (a PluginConfig's descriptor engine), kuadrant.io/v1 ones through
// kuadrant.Compile (wasm-shim's configuration and Limitador's limits, as kuadrant-operator
// deploys them), BackendTrafficPolicies through envoygateway.Compile (the routes of the
// Gateway as Envoy Gateway configures them, and envoyproxy/ratelimit's configuration: a
// policyapi.RateLimitTarget).
// A set holding policies of several APIs, or none, is an error: a test of such inputs
// would test only a part of them, or nothing. Target.Warnings are the API's warnings.
func CompileSet(set *policy.Set, gateway string) (*Target, error) {
	selected := apis.Select(set, apis.Options{})
	if len(selected) > 1 {
		var parts []string
		for _, api := range selected {
			parts = append(parts, fmt.Sprintf("%d %s", api.Policies(set), api.Name()))
		}
		return nil, fmt.Errorf("the inputs hold policies of several APIs (%s): a target runs one API; test them in separate PolicyTests", strings.Join(parts, ", "))
	}
	if selected[0].Policies(set) == 0 {
		return nil, errors.New("the inputs hold no RateLimitPolicy (apim.kuadrant.io/v1alpha1 or kuadrant.io/v1) and no BackendTrafficPolicy: nothing to test")
	}
	compiled, err := selected[0].Compile(set)
	if err != nil {
		return nil, err
	}
	plane, ok := compiled.Gateway(gateway)
	if !ok {
		return nil, noGateway(set, gateway)
	}
	var t *Target
	switch tg := plane.(type) {
	case policyapi.Target:
		frontend, limits, err := tg.Target()
		if err != nil {
			return nil, err
		}
		t = NewTarget(frontend, limits)
	case policyapi.RateLimitTarget:
		frontend, cfg, limits, err := tg.RateLimitTarget()
		if err != nil {
			return nil, err
		}
		t = NewTarget(frontend, limits)
		t.rl, t.rules = cfg, true
	default:
		return nil, fmt.Errorf("%s: the Gateway's data plane cannot run a PolicyTest", selected[0].Name())
	}
	t.Warnings = compiled.Warnings()
	return t, nil
}

// noGateway is the error for a Gateway that is not among the inputs: it names those closest
// to the name given.
func noGateway(set *policy.Set, gateway string) error {
	names := policyapi.Candidates(set, policy.KindGateway, gateway)
	if len(names) == 0 {
		return fmt.Errorf("no Gateway %s among the inputs, which hold no valid Gateway", gateway)
	}
	return fmt.Errorf("no Gateway %s among the inputs; Gateways there: %s", gateway, strings.Join(names[:min(len(names), 10)], ", "))
}

// LoadFiles reads a PluginConfig file (YAML or JSON, either schema) and a limits file in
// limitador's format and returns their target. Problems are reported as
// "file:line: field: what is wrong", one a line.
func LoadFiles(pluginConfig, limits string) (*Target, error) {
	engine, err := configfile.PluginConfig(pluginConfig)
	if err != nil {
		return nil, err
	}
	list, _, err := configfile.Limits(limits)
	if err != nil {
		return nil, err
	}
	return NewTarget(EngineFrontend(engine), list), nil
}

// NewTarget returns the target of a Frontend and the limits of its rate-limit service; it
// names the unnamed limits of a copy of limits "limits[i]". Decisions name their limit, so
// names should be unique within a namespace (merge.Compile's are).
func NewTarget(frontend Frontend, limits []limitador.Limit) *Target {
	named := make([]limitador.Limit, len(limits))
	for i, l := range limits {
		if l.Name == "" {
			l.Name = fmt.Sprintf("limits[%d]", i)
		}
		named[i] = l
	}
	t := &Target{Frontend: frontend, Limits: named, index: make(map[limitKey]int, len(named))}
	for i := len(named) - 1; i >= 0; i-- {
		t.index[limitKey{named[i].Namespace, named[i].Name}] = i // the first of a name wins
	}
	return t
}

// limitIndex returns the index of the limit of domain named name.
func (t *Target) limitIndex(domain, name string) (int, bool) {
	i, ok := t.index[limitKey{domain, name}]
	return i, ok
}

// load builds the target of a test, its paths relative to the test file.
func (t *Test) load() (*Target, error) {
	dir := filepath.Dir(t.File)
	rel := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	var target *Target
	var err error
	switch {
	case t.Spec.PluginConfig != "":
		target, err = LoadFiles(rel(t.Spec.PluginConfig), rel(t.Spec.Limits))
	case len(t.Spec.Envoy) > 0:
		paths := make([]string, len(t.Spec.Envoy))
		for i, p := range t.Spec.Envoy {
			paths[i] = rel(p)
		}
		target, err = LoadEnvoy(paths, EnvoyOptions{Gateway: t.Spec.Gateway, Domain: t.Spec.Domain})
	default:
		paths := make([]string, len(t.Spec.Inputs))
		for i, p := range t.Spec.Inputs {
			paths[i] = rel(p)
		}
		target, err = CompileTopology(paths, t.Spec.Gateway)
	}
	if err != nil {
		return nil, fmt.Errorf("%s:%d: %s %s: the inputs do not compile:\n%w", t.File, t.Line, Kind, t.Metadata.Name, err)
	}
	return target, nil
}
