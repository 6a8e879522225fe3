package kuadrant

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policy/kuadrantv1"
	"github.com/rlpkit/rlpkit/wasmshim"
)

// The service names and defaults kuadrant-operator writes.
const (
	AuthServiceName             = "auth-service"
	RateLimitServiceName        = "ratelimit-service"
	RateLimitCheckServiceName   = "ratelimit-check-service"
	RateLimitReportServiceName  = "ratelimit-report-service"
	DefaultAuthEndpoint         = "kuadrant-auth-service"
	DefaultRateLimitEndpoint    = "kuadrant-ratelimit-service"
	DefaultAuthFailureMode      = wasmshim.FailureModeDeny
	DefaultRateLimitFailureMode = wasmshim.FailureModeAllow
	DefaultAuthTimeout          = "200ms"
	DefaultRateLimitTimeout     = "100ms"
)

// Options are the operator's settings (its environment variables); the zero value is the
// operator's defaults.
type Options struct {
	// AuthEndpoint and RateLimitEndpoint are the Envoy clusters of Authorino and
	// Limitador.
	AuthEndpoint, RateLimitEndpoint string
	// AuthFailureMode and RateLimitFailureMode are "deny" or "allow".
	AuthFailureMode, RateLimitFailureMode string
	// AuthTimeout and RateLimitTimeout are durations ("200ms").
	AuthTimeout, RateLimitTimeout string
	// Now is the lastTransitionTime of the conditions; the zero value keeps output
	// reproducible.
	Now metav1.Time
}

// Result is what Compile produces.
type Result struct {
	// Gateways are every Gateway of the inputs, sorted by namespace/name.
	Gateways []GatewayConfig `json:"gateways"`
	// Policies are the statuses of every kuadrant.io/v1 RateLimitPolicy, sorted.
	Policies []PolicyStatus `json:"policies"`
	// TokenPolicies are the statuses of every TokenRateLimitPolicy, sorted.
	TokenPolicies []PolicyStatus `json:"tokenPolicies,omitempty"`
	// AuthPolicies are the statuses of every AuthPolicy, sorted.
	AuthPolicies []PolicyStatus `json:"authPolicies,omitempty"`
	// Effective are the effective policies of every path, valid or not, in Paths order.
	Effective []EffectivePolicy `json:"-"`
	// TokenEffective are the effective TokenRateLimitPolicies of the same paths, each seen
	// as a RateLimitPolicy (Sources are RateLimitPolicies of the TokenRateLimitPolicies'
	// metadata and body).
	TokenEffective []EffectivePolicy `json:"-"`
	// AuthEffective are the effective AuthPolicies of the same paths, each seen as a
	// RateLimitPolicy whose limits are the AuthPolicy's rule keys (Sources are
	// RateLimitPolicies of the AuthPolicies' metadata); a path with no AuthPolicy has no
	// Policies.
	AuthEffective []EffectivePolicy `json:"-"`
}

// GatewayConfig is what the operator deploys for one Gateway.
type GatewayConfig struct {
	// Gateway is "namespace/name".
	Gateway string `json:"gateway"`
	// Wasm is wasm-shim's configuration for the Gateway.
	Wasm wasmshim.Config `json:"wasm"`
	// Limits are Limitador's limits of the paths through the Gateway (the operator writes
	// one list for the cluster), sorted.
	Limits []limitador.Limit `json:"limits"`
}

// Compile computes the effective policy of every path of the inputs' Gateways,
// HTTPRoutes and GRPCRoutes from their kuadrant.io/v1 RateLimitPolicies and, apart, from
// their TokenRateLimitPolicies (HTTPRoutes only) and AuthPolicies, and compiles, per Gateway,
// wasm-shim's configuration and Limitador's limits as kuadrant-operator v1.5.2 does, with
// each policy's status. Invalid policies and policies whose target is not found take no
// part. A path with an AuthPolicy gets the auth action first, and auth.* is declared for
// the operator's check of its predicates. A policy whose predicates fail the operator's check takes part in the effective
// policies as any other: where its limits are in effect, the path's RateLimitPolicy action
// (or the token limit's two actions) is dropped, a path left with no action gets no action
// set, and its Limitador limits are still written. The same inputs in any order give the
// same result.
func Compile(set *policy.Set, opts Options) *Result {
	var policies []*kuadrantv1.RateLimitPolicy
	targets := newTargets(set)
	for _, p := range set.PoliciesV1 {
		if len(set.Problems(policy.PolicyV1Key(p))) > 0 || !targets.found(p) {
			continue
		}
		policies = append(policies, p)
	}
	res := &Result{Gateways: []GatewayConfig{}}
	paths := Paths(set)
	res.Effective = effectiveAll(policies, paths)
	tokens := newTokenPolicies(set, targets)
	res.TokenEffective = tokens.effective(paths)
	auth := newAuthPolicies(set, targets)
	res.AuthEffective = auth.effective(paths)

	byGateway := map[string]*GatewayConfig{}
	var order []string
	for _, gw := range set.Gateways {
		name := gw.Namespace + "/" + gw.Name
		byGateway[name] = &GatewayConfig{Gateway: name, Wasm: wasmshim.Config{Services: services(opts), ActionSets: []wasmshim.ActionSet{}}, Limits: []limitador.Limit{}}
		order = append(order, name)
	}
	type keyed struct {
		set  wasmshim.ActionSet
		sort actionSetOrder
	}
	sets := map[string][]keyed{}
	checks := operatorChecks{}
	for i := range res.Effective {
		e := &res.Effective[i]
		limits, tokenLimits := e.Limits(), res.TokenEffective[i].Limits()
		withAuth := len(res.AuthEffective[i].Policies) > 0
		if len(limits) == 0 && len(tokenLimits) == 0 && !withAuth || len(e.Path.Hostnames) == 0 {
			continue
		}
		gw := e.Path.Gateway.Namespace + "/" + e.Path.Gateway.Name
		scope := e.Path.RouteKey()
		g := byGateway[gw]
		g.Limits = append(g.Limits, limitadorLimits(limits, scope, LimitID)...)
		g.Limits = append(g.Limits, limitadorLimits(tokenLimits, scope, tokenLimitID)...)
		var authActions []wasmshim.Action
		if withAuth {
			authActions = checks.authAction(&res.AuthEffective[i])
		}
		var rlActions []wasmshim.Action
		if len(limits) > 0 {
			rlActions = actionsOf(limits, scope)
			if e.InvalidSource, e.InvalidPredicate = checks.actions(e, limits, rlActions, withAuth); e.InvalidPredicate != nil {
				rlActions = nil
			}
		}
		actions := orderActions(authActions, rlActions, checks.tokenActions(&res.TokenEffective[i], tokenLimits, scope, withAuth))
		if len(actions) == 0 {
			continue
		}
		matches := routeMatches(e.Path)
		for _, host := range e.Path.Hostnames {
			for mi, m := range matches {
				sum := sha256.Sum256([]byte(e.Path.ID + "|" + itoa(mi+1) + "|" + host))
				sets[gw] = append(sets[gw], keyed{
					set: wasmshim.ActionSet{
						Name:                hex.EncodeToString(sum[:]),
						RouteRuleConditions: wasmshim.RouteRuleConditions{Hostnames: []string{host}, Predicates: m.predicates},
						Actions:             actions,
					},
					sort: actionSetOrder{host: host, match: m, route: e.Path.RouteMeta(), kind: e.Path.RouteKind(), rule: e.Path.Rule, index: mi},
				})
			}
		}
	}
	res.Policies = statuses(set, res.Effective, opts.Now)
	res.TokenPolicies = tokens.statuses(set, targets, res.TokenEffective, opts.Now)
	res.AuthPolicies = auth.statuses(set, targets, res.AuthEffective, opts.Now)
	for _, name := range order {
		g := byGateway[name]
		ks := sets[name]
		slices.SortStableFunc(ks, func(a, b keyed) int { return a.sort.compare(&b.sort) })
		for _, k := range ks {
			g.Wasm.ActionSets = append(g.Wasm.ActionSets, k.set)
		}
		g.Limits = sortLimits(g.Limits)
		res.Gateways = append(res.Gateways, *g)
	}
	slices.SortFunc(res.Gateways, func(a, b GatewayConfig) int { return cmp.Compare(a.Gateway, b.Gateway) })
	return res
}

// services returns the four services the operator declares.
func services(opts Options) map[string]wasmshim.Service {
	authEP := cmp.Or(opts.AuthEndpoint, DefaultAuthEndpoint)
	rlEP := cmp.Or(opts.RateLimitEndpoint, DefaultRateLimitEndpoint)
	rlMode := cmp.Or(opts.RateLimitFailureMode, DefaultRateLimitFailureMode)
	rlTimeout := cmp.Or(opts.RateLimitTimeout, DefaultRateLimitTimeout)
	return map[string]wasmshim.Service{
		AuthServiceName:            {Type: wasmshim.ServiceAuth, Endpoint: authEP, FailureMode: cmp.Or(opts.AuthFailureMode, DefaultAuthFailureMode), Timeout: cmp.Or(opts.AuthTimeout, DefaultAuthTimeout)},
		RateLimitServiceName:       {Type: wasmshim.ServiceRateLimit, Endpoint: rlEP, FailureMode: rlMode, Timeout: rlTimeout},
		RateLimitCheckServiceName:  {Type: wasmshim.ServiceRateLimitCheck, Endpoint: rlEP, FailureMode: rlMode, Timeout: rlTimeout},
		RateLimitReportServiceName: {Type: wasmshim.ServiceRateLimitReport, Endpoint: rlEP, FailureMode: rlMode, Timeout: rlTimeout},
	}
}

// LimitID returns the identifier of a limit in descriptors and Limitador's conditions:
// "limit." + the name with every character not in [A-Za-z0-9_] replaced by "_" + "__" +
// the first 8 hex digits of sha256("policyNs/policyName/limitName").
func LimitID(p *kuadrantv1.RateLimitPolicy, name string) string {
	var b strings.Builder
	b.WriteString("limit.")
	for _, r := range name {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	sum := sha256.Sum256([]byte(p.Namespace + "/" + p.Name + "/" + name))
	b.WriteString("__")
	b.WriteString(hex.EncodeToString(sum[:4]))
	return b.String()
}

// actionsOf returns the actions of an effective policy's limits: one per limit, merged into
// one (same service and scope), conditionalData sorted by joined predicates.
func actionsOf(limits []EffectiveLimit, scope string) []wasmshim.Action {
	a := wasmshim.Action{Service: RateLimitServiceName, Scope: scope}
	for _, l := range limits {
		data := []wasmshim.DataItem{{Expression: &wasmshim.ExpressionData{Key: LimitID(l.Source, l.Name), Value: "1"}}}
		for _, c := range l.Limit.Counters {
			data = append(data, wasmshim.DataItem{Expression: &wasmshim.ExpressionData{Key: c.Expression, Value: c.Expression}})
		}
		a.ConditionalData = append(a.ConditionalData, wasmshim.ConditionalData{Predicates: l.Predicates, Data: data})
		a.Sources = append(a.Sources, Locator(l.Source))
	}
	slices.Sort(a.Sources)
	a.Sources = slices.Compact(a.Sources)
	slices.SortStableFunc(a.ConditionalData, func(x, y wasmshim.ConditionalData) int {
		return cmp.Compare(strings.Join(x.Predicates, ""), strings.Join(y.Predicates, ""))
	})
	return []wasmshim.Action{a}
}

// limitadorLimits returns one Limitador limit per (limit, rate), each limit identified by
// id (LimitID, or tokenLimitID for TokenRateLimitPolicies).
func limitadorLimits(limits []EffectiveLimit, scope string, id func(*kuadrantv1.RateLimitPolicy, string) string) []limitador.Limit {
	var out []limitador.Limit
	for _, l := range limits {
		id := id(l.Source, l.Name)
		vars := []string{}
		for _, c := range l.Limit.Counters {
			vars = append(vars, `descriptors[0]["`+c.Expression+`"]`)
		}
		for _, r := range l.Limit.Rates {
			secs, _ := kuadrantv1.WindowSeconds(r.Window)
			out = append(out, limitador.Limit{
				Name: l.Name, Namespace: scope, MaxValue: clampUint32(r.Limit), Seconds: uint32(min(secs, math.MaxUint32)),
				Conditions: []string{`descriptors[0]["` + id + `"] == "1"`}, Variables: vars,
			})
		}
	}
	return out
}

func clampUint32(n int64) uint32 {
	switch {
	case n < 0:
		return 0
	case n > math.MaxUint32:
		return math.MaxUint32
	}
	return uint32(n)
}

// sortLimits sorts limits and drops exact duplicates (a Gateway's limit reaches a route
// through several rules and listeners).
func sortLimits(ls []limitador.Limit) []limitador.Limit {
	type keyed struct {
		key string
		l   limitador.Limit
	}
	ks := make([]keyed, len(ls))
	for i, l := range ls {
		ks[i] = keyed{strings.Join([]string{l.Namespace, l.Name, strings.Join(l.Conditions, "\x00"), strings.Join(l.Variables, "\x00"), itoa(int(l.Seconds)), itoa(int(l.MaxValue))}, "\x01"), l}
	}
	slices.SortFunc(ks, func(a, b keyed) int { return cmp.Compare(a.key, b.key) })
	ks = slices.CompactFunc(ks, func(a, b keyed) bool { return a.key == b.key })
	out := make([]limitador.Limit, len(ks))
	for i := range ks {
		out[i] = ks[i].l
	}
	return out
}

// Limits returns the Limitador limits of every Gateway as one list, as the operator writes
// them for the cluster: sorted, a route's limits once however many Gateways it is on.
func (r *Result) Limits() []limitador.Limit {
	var all []limitador.Limit
	for _, gw := range r.Gateways {
		all = append(all, gw.Limits...)
	}
	return sortLimits(all)
}

// operatorChecks remembers the operator's check of each predicate: one check per distinct
// predicate, with auth declared or not.
type operatorChecks map[checkKey]error

// actions checks the predicates of a path's actions in their order, as the operator does
// before it writes them, and returns the first failure and the policy the failing
// predicate came from (the top-level when's or the limit's). withAuth tells whether an
// AuthPolicy is on the path: without one, auth.* fails the check.
func (c operatorChecks) actions(e *EffectivePolicy, limits []EffectiveLimit, actions []wasmshim.Action, withAuth bool) (*kuadrantv1.RateLimitPolicy, error) {
	byID := map[string]*EffectiveLimit{}
	for i := range limits {
		byID[LimitID(limits[i].Source, limits[i].Name)] = &limits[i]
	}
	top := e.Rules[WhenRule]
	for _, a := range actions {
		for _, cd := range a.ConditionalData {
			for i, p := range cd.Predicates {
				err := c.check(p, withAuth)
				if err == nil {
					continue
				}
				src := top.Source
				if l := byID[cd.Data[0].Expression.Key]; l != nil && i >= len(top.When) {
					src = l.Source
				}
				return src, err
			}
		}
	}
	return nil, nil
}
