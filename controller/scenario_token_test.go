package controller

import (
	"context"
	"fmt"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/rlpkit/rlpkit/kuadrant"
	"github.com/rlpkit/rlpkit/policy/kuadrantv1alpha1"
)

// trlp returns a kuadrant.io/v1alpha1 TokenRateLimitPolicy targeting kind/target with the
// body (YAML under spec).
func trlp(t *testing.T, ns, name, kind, target, body string) *kuadrantv1alpha1.TokenRateLimitPolicy {
	t.Helper()
	doc := fmt.Sprintf("apiVersion: kuadrant.io/v1alpha1\nkind: TokenRateLimitPolicy\nmetadata: {namespace: %s, name: %s}\nspec:\n  targetRef: {group: gateway.networking.k8s.io, kind: %s, name: %s}\n%s", ns, name, kind, target, indent(body, "  "))
	var p kuadrantv1alpha1.TokenRateLimitPolicy
	if err := yaml.UnmarshalStrict([]byte(doc), &p); err != nil {
		t.Fatalf("policy %s/%s: %v\n%s", ns, name, err, doc)
	}
	return &p
}

// conditionToken returns a TokenRateLimitPolicy's condition of the type, read from the API
// server, checking observedGeneration.
func conditionToken(ctx context.Context, c client.Client, ns, name, typ string) (*metav1.Condition, error) {
	var p kuadrantv1alpha1.TokenRateLimitPolicy
	if err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, &p); err != nil {
		return nil, err
	}
	cond := meta.FindStatusCondition(p.Status.Conditions, typ)
	if cond == nil {
		return nil, fmt.Errorf("TokenRateLimitPolicy %s/%s has no %s condition yet: %v", ns, name, typ, p.Status.Conditions)
	}
	if cond.ObservedGeneration != p.Generation || p.Status.ObservedGeneration != p.Generation {
		return nil, fmt.Errorf("TokenRateLimitPolicy %s/%s: observedGeneration %d (condition %d), want %d", ns, name, p.Status.ObservedGeneration, cond.ObservedGeneration, p.Generation)
	}
	return cond, nil
}

// TestTokenPolicyLifecycle runs the controller against an API server with the
// TokenRateLimitPolicy CRD of config/crd: the CRD rejects a policy on a GRPCRoute with its
// message; a policy on a route is Enforced, its check and report actions and its limit are
// in the Gateway's ConfigMap beside a RateLimitPolicy's; a Gateway policy overridden by it
// is Enforced=False (Overridden); deleting the route's policy removes its limit.
func TestTokenPolicyLifecycle(t *testing.T) {
	cfg := apiServer(t)
	c := direct(t, cfg)
	ctx := context.Background()
	ns := namespace(t, c, "tokens")
	startController(t, cfg, ns)

	err := c.Create(ctx, trlp(t, ns, "on-grpc", "GRPCRoute", "chat", "limits:\n  all: {rates: [{limit: 10, window: 1m}]}\n"))
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "Invalid targetRef.kind. The only supported values are 'HTTPRoute' and 'Gateway'") {
		t.Errorf("create a TokenRateLimitPolicy on a GRPCRoute: %v, want the CRD's message", err)
	}

	tokens := "limits:\n  per-user:\n    rates: [{limit: 5000, window: 1h}]\n    counters: [{expression: \"request.headers['x-user']\"}]\n"
	create(t, c, gateway(ns, "gw", "*.example.com"),
		route(ns, "chat", "chat.example.com", "/v1", "gw"),
		trlp(t, ns, "gw-tokens", "Gateway", "gw", "limits:\n  gateway:\n    rates: [{limit: 100000, window: 1h}]\n"),
		trlp(t, ns, "chat-tokens", "HTTPRoute", "chat", tokens),
		rlpV1(t, ns, "chat-requests", "HTTPRoute", "chat", limitsV1("requests", 60, "1m")))
	id := kuadrant.TokenLimitID(&kuadrantv1alpha1.TokenRateLimitPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "chat-tokens"}}, "per-user")
	eventually(t, settle, func() error {
		for _, ch := range []struct{ name, typ, status, reason string }{
			{"chat-tokens", kuadrant.ConditionAccepted, "True", kuadrant.ReasonAccepted},
			{"chat-tokens", kuadrant.ConditionEnforced, "True", kuadrant.ReasonEnforced},
			{"gw-tokens", kuadrant.ConditionEnforced, "False", kuadrant.ReasonOverridden},
		} {
			cond, err := conditionToken(ctx, c, ns, ch.name, ch.typ)
			if err != nil {
				return err
			}
			if string(cond.Status) != ch.status || cond.Reason != ch.reason {
				return fmt.Errorf("TokenRateLimitPolicy %s: %s = %s (%s: %s), want %s (%s)", ch.name, ch.typ, cond.Status, cond.Reason, cond.Message, ch.status, ch.reason)
			}
		}
		if err := wantConditionV1(ctx, c, ns, "chat-requests", kuadrant.ConditionEnforced, metav1.ConditionTrue, kuadrant.ReasonEnforced); err != nil {
			return err
		}
		got, err := readConfigMap(ctx, c, ns, "gw")
		if err != nil {
			return err
		}
		if want := []string{"tokens/chat=5000/3600", "tokens/chat=60/60"}; !sameStrings(got.maxValuesV1(), want) {
			return fmt.Errorf("kuadrant-limits.yaml: %v, want %v", got.maxValuesV1(), want)
		}
		if wasm := got.cm.Data[KeyKuadrantWasm]; !strings.Contains(wasm, id) || !strings.Contains(wasm, kuadrant.TokenReportHits) {
			return fmt.Errorf("kuadrant-wasm.yaml lacks the token limit's actions:\n%s", wasm)
		}
		return nil
	})

	if err := c.Delete(ctx, &kuadrantv1alpha1.TokenRateLimitPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "chat-tokens"}}); err != nil {
		t.Fatal(err)
	}
	eventually(t, settle, func() error {
		got, err := readConfigMap(ctx, c, ns, "gw")
		if err != nil {
			return err
		}
		if strings.Contains(got.cm.Data[KeyKuadrantLimits], id) {
			return fmt.Errorf("kuadrant-limits.yaml still holds %s", id)
		}
		return nil
	})
}

// sameStrings says whether a and b hold the same strings in any order.
func sameStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	count := map[string]int{}
	for _, s := range a {
		count[s]++
	}
	for _, s := range b {
		count[s]--
	}
	for _, n := range count {
		if n != 0 {
			return false
		}
	}
	return true
}
