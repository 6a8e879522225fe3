package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/rlpkit/rlpkit/kuadrant"
)

// authPolicy returns an AuthPolicy (kuadrant.io/v1) on the HTTPRoute target that
// identifies API-key holders and gives auth.identity.userid.
func authPolicy(t *testing.T, ns, name, target string) *unstructured.Unstructured {
	t.Helper()
	doc := fmt.Sprintf(`apiVersion: kuadrant.io/v1
kind: AuthPolicy
metadata: {namespace: %s, name: %s}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: %s}
  rules:
    authentication:
      key-holders:
        apiKey: {selector: {matchLabels: {app: toys}}}
        credentials: {authorizationHeader: {prefix: APIKEY}}
    response:
      success:
        filters:
          identity: {json: {properties: {userid: {selector: auth.identity.metadata.name}}}}
`, ns, name, target)
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

// TestAuthPolicyLifecycle: the controller watches AuthPolicies. A kuadrant.io/v1 policy
// whose limit reads auth.* is InvalidCelExpression on a route without an AuthPolicy;
// an AuthPolicy created on the route makes it Enforced, and the Gateway's wasm-shim
// configuration, in its ConfigMap and its WasmPlugin, starts with the auth action; the
// AuthPolicy's status is left alone; its deletion undoes both.
func TestAuthPolicyLifecycle(t *testing.T) {
	cfg := apiServer(t)
	c := direct(t, cfg)
	ctx := context.Background()
	ns := namespace(t, c, "auth")
	ctl := startControllerSyncing(t, cfg, Options{DataPlane: dataPlaneOptions}, nil, ns)

	create(t, c, gateway(ns, "gw", "*.toystore.com"), route(ns, "toys", "api.toystore.com", "/toy", "gw"),
		rlpV1(t, ns, "users", "HTTPRoute", "toys", `limits:
  others:
    rates: [{limit: 3, window: 15s}]
    counters: [{expression: auth.identity.userid}]
    when: [{predicate: "auth.identity.userid != 'carol'"}]
`))
	eventually(t, settle, func() error {
		return wantConditionV1(ctx, c, ns, "users", kuadrant.ConditionEnforced, metav1.ConditionFalse, kuadrant.ReasonInvalidCelExpression)
	})

	keys := authPolicy(t, ns, "keys", "toys")
	create(t, c, keys)
	source := kuadrant.AuthLocator(ns, "keys")
	eventually(t, settle, func() error {
		if err := wantConditionV1(ctx, c, ns, "users", kuadrant.ConditionEnforced, metav1.ConditionTrue, kuadrant.ReasonEnforced); err != nil {
			return err
		}
		got, err := readConfigMap(ctx, c, ns, "gw")
		if err != nil {
			return err
		}
		if got.wasm == nil || len(got.wasm.ActionSets) != 1 || len(got.wasm.ActionSets[0].Actions) != 2 {
			return fmt.Errorf("kuadrant-wasm.yaml: %+v, want one action set of two actions", got.wasm)
		}
		if a := got.wasm.ActionSets[0].Actions[0]; a.Service != kuadrant.AuthServiceName || !slices.Equal(a.Sources, []string{source}) {
			return fmt.Errorf("the first action = %+v, want the auth action of %s", a, source)
		}
		plugin, err := getUnstructured(ctx, c, WasmPluginKind, ns, ObjectName("gw", "-kuadrant"))
		if err != nil {
			return err
		}
		spec, err := json.Marshal(plugin.Object["spec"])
		if err != nil {
			return err
		}
		if !strings.Contains(string(spec), `"`+source+`"`) {
			return fmt.Errorf("the WasmPlugin's spec lacks the auth action of %s: %s", source, spec)
		}
		return nil
	})
	read, err := getUnstructured(ctx, c, AuthPolicyKind, ns, "keys")
	if err != nil {
		t.Fatal(err)
	}
	if st, ok := read.Object["status"]; ok {
		t.Errorf("the AuthPolicy's status = %v, want none written", st)
	}

	if err := c.Delete(ctx, keys); err != nil {
		t.Fatal(err)
	}
	eventually(t, settle, func() error {
		if err := wantConditionV1(ctx, c, ns, "users", kuadrant.ConditionEnforced, metav1.ConditionFalse, kuadrant.ReasonInvalidCelExpression); err != nil {
			return err
		}
		got, err := readConfigMap(ctx, c, ns, "gw")
		if err != nil {
			return err
		}
		if got.wasm == nil || len(got.wasm.ActionSets) != 0 {
			return fmt.Errorf("kuadrant-wasm.yaml after the AuthPolicy's deletion: %+v, want no action set", got.wasm)
		}
		return nil
	})
	if errs := ctl.syncErrors(); len(errs) > 0 {
		t.Errorf("a run failed: %v", errs[0])
	}
}
