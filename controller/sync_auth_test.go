package controller_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rlpkit/rlpkit/controller"
	"github.com/rlpkit/rlpkit/kuadrant"
	"github.com/rlpkit/rlpkit/policy/kuadrantv1"
)

// authRoutes are a Gateway, two routes (store and open), a kuadrant.io/v1
// RateLimitPolicy on each and a TokenRateLimitPolicy on store, each limit reading
// auth.identity.userid in its predicate and its counter, as kuadrant-operator's
// authenticated rate-limiting guides pair them with an AuthPolicy.
const authRoutes = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {namespace: ns, name: gw, uid: gw-uid}
spec:
  gatewayClassName: istio
  listeners: [{name: http, port: 80, protocol: HTTP, hostname: "*.example.com"}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {namespace: ns, name: store}
spec:
  parentRefs: [{name: gw}]
  hostnames: [store.example.com]
  rules: [{matches: [{path: {type: PathPrefix, value: /toy}}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {namespace: ns, name: open}
spec:
  parentRefs: [{name: gw}]
  hostnames: [open.example.com]
  rules: [{matches: [{path: {type: PathPrefix, value: /}}]}]
---
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata: {namespace: ns, name: store-users, generation: 1, uid: store-users-uid}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: store}
  limits:
    others:
      rates: [{limit: 3, window: 15s}]
      counters: [{expression: auth.identity.userid}]
      when: [{predicate: "auth.identity.userid != 'carol'"}]
---
apiVersion: kuadrant.io/v1alpha1
kind: TokenRateLimitPolicy
metadata: {namespace: ns, name: store-tokens, generation: 1, uid: store-tokens-uid}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: store}
  limits:
    per-user:
      rates: [{limit: 1000, window: 1m}]
      counters: [{expression: auth.identity.userid}]
      when: [{predicate: "auth.identity.userid != 'carol'"}]
---
apiVersion: kuadrant.io/v1
kind: RateLimitPolicy
metadata: {namespace: ns, name: open-users, generation: 1, uid: open-users-uid}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: open}
  limits:
    others:
      rates: [{limit: 3, window: 15s}]
      counters: [{expression: auth.identity.userid}]
      when: [{predicate: "auth.identity.userid != 'carol'"}]
`

// authKeys is an AuthPolicy on the route store that identifies API-key holders and gives
// auth.identity.userid.
const authKeys = `
---
apiVersion: kuadrant.io/v1
kind: AuthPolicy
metadata: {namespace: ns, name: store-keys, generation: 1, uid: store-keys-uid}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: store}
  rules:
    authentication:
      key-holders:
        apiKey: {selector: {matchLabels: {app: store}}}
        credentials: {authorizationHeader: {prefix: APIKEY}}
        priority: 1
    response:
      success:
        filters:
          identity:
            json:
              properties:
                userid: {selector: auth.identity.metadata.annotations.secret\.kuadrant\.io/user-id}
`

// conditionV1 returns the condition typ of the kuadrant.io/v1 RateLimitPolicy ns/name.
func conditionV1(t *testing.T, c client.Client, name, typ string) *metav1.Condition {
	t.Helper()
	var p kuadrantv1.RateLimitPolicy
	if err := c.Get(context.Background(), types.NamespacedName{Namespace: "ns", Name: name}, &p); err != nil {
		t.Fatal(err)
	}
	return meta.FindStatusCondition(p.Status.Conditions, typ)
}

// kuadrantKeys returns the wasm-shim configuration and Limitador limits of the ConfigMap
// of the Gateway ns/gw.
func kuadrantKeys(t *testing.T, c client.Client) map[string]string {
	t.Helper()
	var cm corev1.ConfigMap
	if err := c.Get(context.Background(), types.NamespacedName{Namespace: "ns", Name: "rlpkit-gw"}, &cm); err != nil {
		t.Fatal(err)
	}
	return map[string]string{controller.KeyKuadrantWasm: cm.Data[controller.KeyKuadrantWasm], controller.KeyKuadrantLimits: cm.Data[controller.KeyKuadrantLimits]}
}

// fromFile returns the wasm-shim configuration and Limitador limits compiling docs from a
// file gives the Gateway ns/gw.
func fromFile(t *testing.T, docs string) map[string]string {
	t.Helper()
	want := compileFile(t, docs)["ns/gw"]
	return map[string]string{controller.KeyKuadrantWasm: want[controller.KeyKuadrantWasm], controller.KeyKuadrantLimits: want[controller.KeyKuadrantLimits]}
}

// TestSyncAuthPolicies: an AuthPolicy read beside the RateLimitPolicies and a
// TokenRateLimitPolicy makes auth.* valid on its route: the policies there are Enforced, and the Gateway's wasm-shim configuration
// holds the operator's auth action before the rate limits, as compiling the same objects
// from a file gives; the AuthPolicy's status is not written. Once the AuthPolicy is
// deleted, the route's predicate is invalid again and the auth action goes.
func TestSyncAuthPolicies(t *testing.T) {
	ctx := context.Background()
	c, _ := fakeClusterOf(t, authRoutes+authKeys)
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var s controller.Syncer
	sync := func() controller.Summary {
		t.Helper()
		sum, err := s.Sync(ctx, c, controller.Options{Now: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}

	sum := sync()
	if got, want := [4]int{sum.PoliciesV1, sum.TokenPolicies, sum.AuthPolicies, sum.StatusPatches}, [4]int{2, 1, 1, 3}; got != want {
		t.Errorf("Sync: v1 policies, token policies, AuthPolicies read, status patches = %v, want %v", got, want)
	}
	if cond := meta.FindStatusCondition(getToken(t, c, "store-tokens").Conditions, kuadrant.ConditionEnforced); cond == nil || cond.Status != metav1.ConditionTrue {
		t.Errorf("the TokenRateLimitPolicy store-tokens (beside the AuthPolicy): Enforced = %+v, want True", cond)
	}
	if cond := conditionV1(t, c, "store-users", kuadrant.ConditionEnforced); cond == nil || cond.Status != metav1.ConditionTrue || cond.Reason != kuadrant.ReasonEnforced {
		t.Errorf("store-users (beside the AuthPolicy): Enforced = %+v, want True", cond)
	}
	if cond := conditionV1(t, c, "open-users", kuadrant.ConditionEnforced); cond == nil || cond.Reason != "InvalidCelExpression" || !strings.Contains(cond.Message, "undeclared reference to 'auth'") {
		t.Errorf("open-users (no AuthPolicy): Enforced = %+v, want InvalidCelExpression naming auth", cond)
	}
	got := kuadrantKeys(t, c)
	if diff := cmp.Diff(fromFile(t, authRoutes+authKeys), got); diff != "" {
		t.Errorf("the ConfigMap against compiling the same objects from a file (-file +ConfigMap):\n%s", diff)
	}
	wasm := got[controller.KeyKuadrantWasm]
	auth := strings.Index(wasm, "- authpolicy.kuadrant.io:ns/store-keys")
	limit := strings.Index(wasm, "- ratelimitpolicy.kuadrant.io:ns/store-users")
	if auth < 0 || limit < auth || !strings.Contains(wasm, "service: auth-service") {
		t.Errorf("%s:\n%s\nwant the auth action of ns/store-keys before the rate limits of ns/store-users", controller.KeyKuadrantWasm, wasm)
	}
	var ap unstructured.Unstructured
	ap.SetGroupVersionKind(controller.AuthPolicyKind)
	if err := c.Get(ctx, types.NamespacedName{Namespace: "ns", Name: "store-keys"}, &ap); err != nil {
		t.Fatal(err)
	}
	if st, ok := ap.Object["status"]; ok {
		t.Errorf("the AuthPolicy's status = %v, want none written", st)
	}

	if err := c.Delete(ctx, &ap); err != nil {
		t.Fatal(err)
	}
	if sum := sync(); sum.AuthPolicies != 0 {
		t.Errorf("AuthPolicies read after the deletion = %d, want 0", sum.AuthPolicies)
	}
	if cond := conditionV1(t, c, "store-users", kuadrant.ConditionEnforced); cond == nil || cond.Reason != "InvalidCelExpression" {
		t.Errorf("store-users after the AuthPolicy's deletion: Enforced = %+v, want InvalidCelExpression", cond)
	}
	if cond := meta.FindStatusCondition(getToken(t, c, "store-tokens").Conditions, kuadrant.ConditionEnforced); cond == nil || cond.Reason != "InvalidCelExpression" {
		t.Errorf("the TokenRateLimitPolicy store-tokens after the AuthPolicy's deletion: Enforced = %+v, want InvalidCelExpression", cond)
	}
	got = kuadrantKeys(t, c)
	if diff := cmp.Diff(fromFile(t, authRoutes), got); diff != "" {
		t.Errorf("the ConfigMap after the AuthPolicy's deletion against compiling the objects left (-file +ConfigMap):\n%s", diff)
	}
	if strings.Contains(got[controller.KeyKuadrantWasm], "authpolicy.kuadrant.io") {
		t.Errorf("%s after the AuthPolicy's deletion still holds its auth action:\n%s", controller.KeyKuadrantWasm, got[controller.KeyKuadrantWasm])
	}
}

// noAuthPolicies is a client of a cluster that does not serve AuthPolicies: listing them
// fails as the API server's discovery makes it fail.
type noAuthPolicies struct{ client.Client }

func (c noAuthPolicies) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	if u, ok := list.(*unstructured.UnstructuredList); ok && u.GroupVersionKind().Kind == controller.AuthPolicyKind.Kind+"List" {
		return &meta.NoKindMatchError{GroupKind: controller.AuthPolicyKind.GroupKind(), SearchedVersions: []string{controller.AuthPolicyKind.Version}}
	}
	return c.Client.List(ctx, list, opts...)
}

// TestSyncWithoutAuthPolicyCRD: where AuthPolicies are not served, Sync compiles the
// RateLimitPolicies as without AuthPolicies, without an error.
func TestSyncWithoutAuthPolicyCRD(t *testing.T) {
	fc, _ := fakeClusterOf(t, authRoutes)
	c := noAuthPolicies{fc}
	var s controller.Syncer
	sum, err := s.Sync(context.Background(), c, controller.Options{})
	if err != nil {
		t.Fatalf("Sync without the AuthPolicy CRD: %v", err)
	}
	if sum.PoliciesV1 != 2 || sum.TokenPolicies != 1 || sum.AuthPolicies != 0 {
		t.Errorf("Sync: v1 policies, token policies, AuthPolicies read = %d, %d, %d, want 2, 1, 0", sum.PoliciesV1, sum.TokenPolicies, sum.AuthPolicies)
	}
	if diff := cmp.Diff(fromFile(t, authRoutes), kuadrantKeys(t, c)); diff != "" {
		t.Errorf("the ConfigMap against compiling the same objects from a file (-file +ConfigMap):\n%s", diff)
	}
	if cond := conditionV1(t, c, "store-users", kuadrant.ConditionEnforced); cond == nil || cond.Reason != "InvalidCelExpression" {
		t.Errorf("store-users: Enforced = %+v, want InvalidCelExpression", cond)
	}
}
