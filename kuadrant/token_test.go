package kuadrant

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policy/kuadrantv1alpha1"
	"github.com/rlpkit/rlpkit/policyapi"
	"github.com/rlpkit/rlpkit/rlsmsg"
	"github.com/rlpkit/rlpkit/wasmshim"
)

// TestTokenLimitID: the operator's identifiers, its reference example included.
func TestTokenLimitID(t *testing.T) {
	p := &kuadrantv1alpha1.TokenRateLimitPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: "testNS", Name: "trlpA"}}
	for name, want := range map[string]string{
		"foo":       "tokenlimit.foo__13adad8e",
		"free-tier": "tokenlimit.free_tier__ad09752c",
	} {
		if got := TokenLimitID(p, name); got != want {
			t.Errorf("TokenLimitID(testNS/trlpA, %q) = %q, want %q", name, got, want)
		}
	}
}

// compileFile compiles a golden case's input.
func compileFile(t *testing.T, name string) (*policy.Set, *Result) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "compile", name, "input.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	set, err := policy.Decode("input.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	return set, Compile(set, Options{})
}

// TestTokenAndRateLimitApart: on one route, a TokenRateLimitPolicy and a RateLimitPolicy of
// the same namespace, name and limit name compile to calls in the operator's order (check
// and report per token limit, then the rate limit), and each call's descriptor selects
// only its own kind's Limitador limits: neither counts the other's traffic.
func TestTokenAndRateLimitApart(t *testing.T) {
	_, res := compileFile(t, "token-route")
	gw := res.Gateways[0]
	ev, err := wasmshim.New(&gw.Wasm)
	if err != nil {
		t.Fatal(err)
	}
	req := wasmshim.Request{Method: "POST", Host: "llm.example.com", Path: "/v1/chat/completions", Headers: map[string][]string{"x-tenant": {"acme"}, "x-tier": {"free"}}}
	calls := ev.Evaluate(&req).Calls
	var services []string
	for _, c := range calls {
		services = append(services, c.Service)
	}
	want := []string{RateLimitCheckServiceName, RateLimitReportServiceName, RateLimitCheckServiceName, RateLimitReportServiceName, RateLimitServiceName}
	if !slices.Equal(services, want) {
		t.Fatalf("calls %v, want %v", services, want)
	}
	matching := func(c wasmshim.Call) []string {
		var out []string
		desc := rlsmsg.Descriptor{Entries: c.Entries}
		for _, l := range gw.Limits {
			holds := c.Domain == l.Namespace
			for _, s := range l.Conditions {
				cond, err := limitador.ParseCondition(s)
				if err != nil {
					t.Fatal(err)
				}
				holds = holds && cond.Holds(desc)
			}
			if holds {
				out = append(out, strings.SplitN(l.Conditions[0], `"`, 3)[1])
			}
		}
		return out
	}
	for i, c := range calls {
		got := matching(c)
		prefix := "tokenlimit."
		if c.Service == RateLimitServiceName {
			prefix = "limit."
		}
		if len(got) == 0 {
			t.Errorf("call %d (%s): no Limitador limit applies", i, c.Service)
		}
		for _, id := range got {
			if !strings.HasPrefix(id, prefix) {
				t.Errorf("call %d (%s) selects limit %s of the other kind", i, c.Service, id)
			}
		}
		if c.Service == RateLimitCheckServiceName && c.HitsAddend != 0 {
			t.Errorf("call %d: check hits_addend %d, want 0", i, c.HitsAddend)
		}
	}
}

// TestTokenWarnings: a TokenRateLimitPolicy that is not enforced is a warning at its line,
// and a top-level when beside defaults, which the operator ignores, is one too.
func TestTokenWarnings(t *testing.T) {
	set, res := compileFile(t, "token-statuses")
	var got []string
	for _, w := range tokenWarnings(set, res) {
		got = append(got, w.String())
	}
	for _, want := range []string{
		"input.yaml:56: TokenRateLimitPolicy ai/chat-tokens: spec: Unknown: TokenRateLimitPolicy has encountered some issues: policy rule(s) overridden: daily by tokenratelimitpolicy.kuadrant.io:gateway-system/gw-overrides",
		"input.yaml:86: TokenRateLimitPolicy ai/missing: spec.targetRef: TargetNotFound: TokenRateLimitPolicy target nope was not found; HTTPRoutes in namespace ai: chat, embed, orphan",
	} {
		if !slices.ContainsFunc(got, func(g string) bool { return strings.HasPrefix(g, want) }) {
			t.Errorf("warnings %q\nwant one %q", got, want)
		}
	}
	set, res = compileFile(t, "token-invalid")
	ws := tokenWarnings(set, res)
	if len(ws) != 1 || !strings.HasPrefix(ws[0].String(), "input.yaml:26: TokenRateLimitPolicy ai/tiers: spec: InvalidCelExpression: validation issues:") || !strings.Contains(ws[0].Message, "no valid AuthPolicy among the inputs is on this one") {
		t.Errorf("warnings %v, want one InvalidCelExpression at input.yaml:26 saying why auth.* fails", ws)
	}
	data := "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: ns}\nspec:\n  gatewayClassName: c\n  listeners: [{name: http, port: 80, protocol: HTTP}]\n---\napiVersion: kuadrant.io/v1alpha1\nkind: TokenRateLimitPolicy\nmetadata: {name: t, namespace: ns}\nspec:\n  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}\n  when: [{predicate: 'true'}]\n  defaults: {limits: {a: {rates: [{limit: 1, window: 1m}]}}}\n"
	set, err := policy.Decode("w.yaml", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	data = strings.Replace(data, "predicate: 'true'", "predicate: \"source.id == 'x'\"", 1)
	set, err = policy.Decode("w.yaml", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	ws = tokenWarnings(set, Compile(set, Options{}))
	if !slices.ContainsFunc(ws, func(w policyapi.Warning) bool {
		return strings.HasPrefix(w.String(), "w.yaml:13: TokenRateLimitPolicy ns/t: spec.when: ignored")
	}) {
		t.Errorf("warnings %v, want one at w.yaml:13 for spec.when", ws)
	}
	set, err = policy.Decode("w.yaml", []byte(strings.Replace(data, "  when: [{predicate: \"source.id == 'x'\"}]\n  defaults: {limits: {a: {rates: [{limit: 1, window: 1m}]}}}", "  limits: {a: {rates: [{limit: 1, window: 1m}], when: [{predicate: \"source.id == 'x'\"}]}}", 1)))
	if err != nil {
		t.Fatal(err)
	}
	ws = tokenWarnings(set, Compile(set, Options{}))
	if !slices.ContainsFunc(ws, func(w policyapi.Warning) bool {
		return strings.HasPrefix(w.String(), "w.yaml:13: TokenRateLimitPolicy ns/t: spec.limits[a].when[0].predicate: rlpkit's check of Kuadrant's well-known attributes:")
	}) {
		t.Errorf("warnings %v, want one at w.yaml:13 for the limit's predicate", ws)
	}
}
