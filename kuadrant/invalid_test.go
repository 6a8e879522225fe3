package kuadrant

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlpkit/rlpkit/policy"
)

func compileCase(t *testing.T, name string) (*policy.Set, *Result) {
	t.Helper()
	file := filepath.Join("testdata", "compile", name, "input.yaml")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	set, err := policy.Decode(file, data)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	return set, Compile(set, Options{})
}

func enforced(t *testing.T, res *Result, name string) (reason, message string) {
	t.Helper()
	for _, p := range res.Policies {
		if p.Name != name {
			continue
		}
		for _, c := range p.Conditions {
			if c.Type == ConditionEnforced {
				return c.Reason, c.Message
			}
		}
	}
	t.Fatalf("no Enforced condition for %s", name)
	return "", ""
}

// TestInvalidPredicateKeepsPolicyEffective: a route policy whose predicates read auth.*
// with no AuthPolicy stays the effective policy of its route, as in kuadrant-operator:
// the Gateway's default is Overridden, the route gets no action set, and the route
// policy's Limitador limits are written.
func TestInvalidPredicateKeepsPolicyEffective(t *testing.T) {
	_, res := compileCase(t, "invalid-predicate")
	if reason, msg := enforced(t, res, "ingress/edge-default"); reason != ReasonOverridden || msg != "RateLimitPolicy is overridden by [shop/members]" {
		t.Errorf("Gateway default: Enforced %s %q, want Overridden by [shop/members]", reason, msg)
	}
	if reason, _ := enforced(t, res, "shop/members"); reason != ReasonInvalidCelExpression {
		t.Errorf("route policy: Enforced reason %s, want %s", reason, ReasonInvalidCelExpression)
	}
	if len(res.Gateways) != 1 || len(res.Gateways[0].Wasm.ActionSets) != 0 {
		t.Fatalf("action sets = %+v, want none: the route's action is dropped", res.Gateways)
	}
	var names []string
	for _, l := range res.Limits() {
		names = append(names, l.Namespace+" "+l.Name)
	}
	if got := strings.Join(names, ","); got != "shop/catalog member,shop/catalog staff" {
		t.Errorf("Limitador limits = %s, want the route policy's member and staff", got)
	}
}

// TestInvalidPredicateStatusDeterministic: the InvalidCelExpression message of a policy
// with several failing predicates is the same on every run and names the first predicate
// of the path's action that fails (conditionalData in their sorted order).
func TestInvalidPredicateStatusDeterministic(t *testing.T) {
	_, first := compileCase(t, "invalid-predicate")
	_, want := enforced(t, first, "shop/members")
	if !strings.Contains(want, "auth.identity.sub != 'staff'") {
		t.Errorf("message %q, want it to name auth.identity.sub != 'staff', the first predicate of the action", want)
	}
	for i := range 40 {
		_, res := compileCase(t, "invalid-predicate")
		if _, got := enforced(t, res, "shop/members"); got != want {
			t.Fatalf("run %d: message %q, first run %q", i+1, got, want)
		}
	}
}

// TestUntypedSourceWarns: examples/toystore's source.id == source.address passes the
// operator's check, so the policy is accepted and its limits take effect, and rlpkit's
// stricter check says at the predicate's line that source has no field id.
func TestUntypedSourceWarns(t *testing.T) {
	set, res := compileCase(t, "toystore-untyped-source")
	for _, p := range res.Policies {
		if p.Name == "gateway-system/toystore-gw" && (len(p.Conditions) < 2 || p.Conditions[0].Status != "True") {
			t.Fatalf("toystore-gw conditions %+v, want Accepted", p.Conditions)
		}
	}
	for _, p := range set.PoliciesV1 {
		if errs := set.Problems(policy.PolicyV1Key(p)); len(errs) > 0 {
			t.Fatalf("%s/%s problems: %v", p.Namespace, p.Name, errs)
		}
	}
	found := false
	for _, w := range Warnings(set, res) {
		if w.Field == "spec.limits[limit-per-ip].when[0].predicate" {
			found = true
			if !strings.Contains(w.Message, "undefined field 'id'") || w.Source.Line == 0 || w.Object != "RateLimitPolicy gateway-system/toystore-gw" {
				t.Errorf("warning %+v, want undefined field 'id' at the predicate's line", w)
			}
			if w.Source.Line != 48 {
				t.Errorf("warning at line %d, want 48 (the predicate)", w.Source.Line)
			}
		}
	}
	if !found {
		t.Errorf("no warning at spec.limits[limit-per-ip].when[0].predicate in %+v", Warnings(set, res))
	}
}

// TestInvalidPredicateWarningSaysWhere: a Gateway policy that is InvalidCelExpression
// because the check failed on another policy's route (as the operator reports it) is
// told where and whose predicate failed.
func TestInvalidPredicateWarningSaysWhere(t *testing.T) {
	set, res := compileCase(t, "toystore-untyped-source")
	for _, w := range Warnings(set, res) {
		if w.Object == "RateLimitPolicy gateway-system/toystore-gw" && strings.Contains(w.Message, ReasonInvalidCelExpression) {
			if !strings.Contains(w.Message, "(failing on route toystore/reviews, a predicate of toystore/reviewers)") {
				t.Errorf("warning %q, want it to name route toystore/reviews and policy toystore/reviewers", w.Message)
			}
			return
		}
	}
	t.Errorf("no InvalidCelExpression warning for gateway-system/toystore-gw in %+v", Warnings(set, res))
}

// TestInvalidTopLevelWhenAttributed: a failing top-level when merged over another
// policy's limit is attributed to the policy that wrote the when.
func TestInvalidTopLevelWhenAttributed(t *testing.T) {
	_, res := compileCase(t, "invalid-predicate-merge")
	for _, e := range res.Effective {
		if e.Path.Route.Name != "shelf" || len(e.Path.Hostnames) == 0 {
			continue
		}
		if e.InvalidPredicate == nil || e.InvalidSource == nil || e.InvalidSource.Name != "free-tier" {
			t.Fatalf("path %s: InvalidPredicate %v from %v, want a failure from books/free-tier", e.Path.ID, e.InvalidPredicate, e.InvalidSource)
		}
		return
	}
	t.Fatal("no valid path through route shelf")
}
