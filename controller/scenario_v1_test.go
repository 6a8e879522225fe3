package controller

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	"github.com/rlpkit/rlpkit/kuadrant"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policy/kuadrantv1"
)

// TestLifecycleV1 walks one Gateway with kuadrant.io/v1 policies through its life: created
// -> kuadrant-operator's statuses and the ConfigMap; a policy edited -> ConfigMap updated
// and observedGeneration follows; the route deleted -> TargetNotFound, and the Gateway's
// policy on no path.
func TestLifecycleV1(t *testing.T) {
	cfg := apiServer(t)
	c := direct(t, cfg)
	ctx := context.Background()
	ns := namespace(t, c, "lifecycle-v1")
	ctl := startController(t, cfg, ns)

	create(t, c, gateway(ns, "gw", "*.toystore.com"),
		route(ns, "toys", "api.toystore.com", "/toys", "gw"),
		rlpV1(t, ns, "gw-policy", "Gateway", "gw", limitsV1("gateway", 100, "1m")),
		rlpV1(t, ns, "toys-policy", "HTTPRoute", "toys", limitsV1("toys", 10, "1s")))

	t.Run("created", func(t *testing.T) {
		eventually(t, settle, func() error {
			checks := []struct {
				name, typ string
				status    metav1.ConditionStatus
				reason    string
			}{
				{"gw-policy", kuadrant.ConditionAccepted, metav1.ConditionTrue, kuadrant.ReasonAccepted},
				// Atomic defaults: the route's policy, more specific, replaces the Gateway's.
				{"gw-policy", kuadrant.ConditionEnforced, metav1.ConditionFalse, kuadrant.ReasonOverridden},
				{"toys-policy", kuadrant.ConditionAccepted, metav1.ConditionTrue, kuadrant.ReasonAccepted},
				{"toys-policy", kuadrant.ConditionEnforced, metav1.ConditionTrue, kuadrant.ReasonEnforced},
			}
			for _, ch := range checks {
				if err := wantConditionV1(ctx, c, ns, ch.name, ch.typ, ch.status, ch.reason); err != nil {
					return err
				}
			}
			cond, err := conditionV1(ctx, c, ns, "gw-policy", kuadrant.ConditionEnforced)
			if err != nil {
				return err
			}
			if want := "RateLimitPolicy is overridden by [lifecycle-v1/toys-policy]"; cond.Message != want {
				return fmt.Errorf("gw-policy: Enforced message %q, want %q", cond.Message, want)
			}
			got, err := readConfigMap(ctx, c, ns, "gw")
			if err != nil {
				return err
			}
			if diff := cmp.Diff([]string{"lifecycle-v1/toys=10/1"}, got.maxValuesV1()); diff != "" {
				return fmt.Errorf("kuadrant-limits.yaml (-want +got):\n%s", diff)
			}
			// limits.yaml, which rlpkit serve reads, holds them too.
			if diff := cmp.Diff([]string{"lifecycle-v1/toys=10/1"}, got.maxValues()); diff != "" {
				return fmt.Errorf("limits.yaml (-want +got):\n%s", diff)
			}
			if n := len(got.wasm.ActionSets); n != 1 || got.wasm.ActionSets[0].Actions[0].Scope != "lifecycle-v1/toys" {
				return fmt.Errorf("kuadrant-wasm.yaml has %d action sets, want 1 scoped to the route: %+v", n, got.wasm.ActionSets)
			}
			return nil
		})
	})

	t.Run("edited", func(t *testing.T) {
		var p kuadrantv1.RateLimitPolicy
		if err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: "toys-policy"}, &p); err != nil {
			t.Fatal(err)
		}
		l := p.Spec.Limits["toys"]
		l.Rates[0].Limit = 20
		if err := c.Update(ctx, &p); err != nil {
			t.Fatal(err)
		}
		if p.Generation < 2 {
			t.Fatalf("generation after an edit = %d, want at least 2", p.Generation)
		}
		eventually(t, settle, func() error {
			got, err := readConfigMap(ctx, c, ns, "gw")
			if err != nil {
				return err
			}
			if diff := cmp.Diff([]string{"lifecycle-v1/toys=20/1"}, got.maxValuesV1()); diff != "" {
				return fmt.Errorf("kuadrant-limits.yaml (-want +got):\n%s", diff)
			}
			// wantConditionV1 checks observedGeneration == generation, in the conditions
			// and in status.observedGeneration.
			return wantConditionV1(ctx, c, ns, "toys-policy", kuadrant.ConditionEnforced, metav1.ConditionTrue, kuadrant.ReasonEnforced)
		})
	})

	t.Run("route deleted", func(t *testing.T) {
		if err := c.Delete(ctx, route(ns, "toys", "", "/")); err != nil {
			t.Fatal(err)
		}
		eventually(t, settle, func() error {
			cond, err := conditionV1(ctx, c, ns, "toys-policy", kuadrant.ConditionAccepted)
			if err != nil {
				return err
			}
			if cond.Status != metav1.ConditionFalse || cond.Reason != kuadrant.ReasonTargetNotFound || cond.Message != "RateLimitPolicy target toys was not found" {
				return fmt.Errorf("toys-policy: Accepted = %s (%s: %s), want False (TargetNotFound: RateLimitPolicy target toys was not found)", cond.Status, cond.Reason, cond.Message)
			}
			// kuadrant-operator reports no Enforced condition for a policy it does not
			// accept: the one of earlier is gone.
			if cond, err := conditionV1(ctx, c, ns, "toys-policy", kuadrant.ConditionEnforced); err == nil {
				return fmt.Errorf("toys-policy: Enforced = %s (%s), want no Enforced condition once not accepted", cond.Status, cond.Reason)
			} else if !strings.Contains(err.Error(), "no Enforced condition") {
				return err
			}
			if err := wantConditionV1(ctx, c, ns, "gw-policy", kuadrant.ConditionEnforced, metav1.ConditionFalse, kuadrant.ReasonUnknown); err != nil {
				return err
			}
			got, err := readConfigMap(ctx, c, ns, "gw")
			if err != nil {
				return err
			}
			if len(got.v1Limits) != 0 || len(got.limits) != 0 || len(got.wasm.ActionSets) != 0 {
				return fmt.Errorf("ConfigMap still has %d v1 limits, %d limits and %d action sets", len(got.v1Limits), len(got.limits), len(got.wasm.ActionSets))
			}
			return nil
		})
	})
	if errs := ctl.syncErrors(); len(errs) > 0 {
		t.Errorf("sync errors: %v", errs)
	}
}

// TestInvalidPolicyV1: a kuadrant.io/v1 policy the API server accepts but rlpkit's
// validation rejects (a counter that does not type-check) is Accepted=False with reason
// Invalid and the field; the other policies are unaffected; what the CRD can check, the
// API server refuses.
func TestInvalidPolicyV1(t *testing.T) {
	cfg := apiServer(t)
	c := direct(t, cfg)
	ctx := context.Background()
	ns := namespace(t, c, "invalid-v1")
	ctl := startController(t, cfg, ns)

	bad := strings.Replace(limitsV1("typo", 5, "10s"), "source.remote_address", "request.hedaers.x", 1)
	create(t, c, gateway(ns, "gw", "*.example.com"),
		route(ns, "a", "a.example.com", "/", "gw"),
		route(ns, "b", "b.example.com", "/", "gw"),
		rlpV1(t, ns, "good", "HTTPRoute", "a", limitsV1("good", 7, "1m")),
		rlpV1(t, ns, "bad", "HTTPRoute", "b", bad))

	eventually(t, settle, func() error {
		cond, err := conditionV1(ctx, c, ns, "bad", kuadrant.ConditionAccepted)
		if err != nil {
			return err
		}
		if cond.Status != metav1.ConditionFalse || cond.Reason != kuadrant.ReasonInvalid || !strings.Contains(cond.Message, "spec.limits[typo].counters[0].expression") {
			return fmt.Errorf("bad: Accepted = %s (%s: %s), want False (Invalid) naming spec.limits[typo].counters[0].expression", cond.Status, cond.Reason, cond.Message)
		}
		if err := wantConditionV1(ctx, c, ns, "good", kuadrant.ConditionEnforced, metav1.ConditionTrue, kuadrant.ReasonEnforced); err != nil {
			return err
		}
		got, err := readConfigMap(ctx, c, ns, "gw")
		if err != nil {
			return err
		}
		if diff := cmp.Diff([]string{"invalid-v1/a=7/60"}, got.maxValuesV1()); diff != "" {
			return fmt.Errorf("kuadrant-limits.yaml (-want +got):\n%s", diff)
		}
		return nil
	})

	t.Run("rejected by the CRD", func(t *testing.T) {
		tests := []struct {
			name, kind, body, want string
		}{
			{"day-window", "HTTPRoute", limitsV1("l", 1, "1d"), "rates[0].window"},
			{"defaults-and-overrides", "HTTPRoute", "defaults:\n" + indent(limitsV1("l", 1, "1s"), "  ") + "overrides:\n" + indent(limitsV1("l", 1, "1s"), "  "),
				"Overrides and explicit defaults are mutually exclusive"},
			{"limits-and-overrides", "HTTPRoute", limitsV1("l", 1, "1s") + "overrides:\n" + indent(limitsV1("m", 1, "1s"), "  "),
				"Overrides and implicit defaults are mutually exclusive"},
			{"no-limits", "HTTPRoute", "defaults: {strategy: merge}\n", "at least one limit is required"},
			{"empty-when", "HTTPRoute", limitsV1("l", 1, "1s") + "when: []\n", "spec.when"},
			{"quoted-counter", "HTTPRoute", strings.Replace(limitsV1("l", 1, "1s"), "source.remote_address", `'request.headers[\"x\"]'`, 1), "counters[0].expression"},
			{"unknown-strategy", "HTTPRoute", "defaults:\n  strategy: newest\n" + indent(limitsV1("l", 1, "1s"), "  "), "spec.defaults.strategy"},
			{"wrong-kind", "Service", limitsV1("l", 1, "1s"), "invalid targetRef.kind"},
		}
		for _, tc := range tests {
			rlpV1(t, ns, tc.name, tc.kind, "a", tc.body) // decodes strictly: no field misspelt
			// Sent as kubectl sends it: a typed client would leave out an empty when.
			doc := fmt.Sprintf("apiVersion: kuadrant.io/v1\nkind: RateLimitPolicy\nmetadata: {namespace: %s, name: %s}\nspec:\n  targetRef: {group: gateway.networking.k8s.io, kind: %s, name: a}\n%s", ns, tc.name, tc.kind, indent(tc.body, "  "))
			u := &unstructured.Unstructured{}
			if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
				t.Fatal(err)
			}
			err := c.Create(ctx, u)
			if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("create the policy %s = %v, want Invalid naming %q", tc.name, err, tc.want)
			}
		}
	})
	if errs := ctl.syncErrors(); len(errs) > 0 {
		t.Errorf("sync errors: %v", errs)
	}
}

// TestBothAPIs: an apim.kuadrant.io/v1alpha1 and a kuadrant.io/v1 policy of the same name
// on one route are two objects with their own statuses; limits.yaml holds the limits of
// both, and serves the v1 policy's descriptors from the ConfigMap as written; after steady
// state, events that change nothing compiled cause no writes.
func TestBothAPIs(t *testing.T) {
	cfg := apiServer(t)
	c := direct(t, cfg)
	ctx := context.Background()
	ns := namespace(t, c, "both")
	ctl := startController(t, cfg, ns)

	create(t, c, gateway(ns, "gw", "*.example.com"),
		route(ns, "shop", "shop.example.com", "/", "gw"),
		rlp(t, ns, "shop", "HTTPRoute", "shop", limits("default", 50, 60)),
		rlpV1(t, ns, "shop", "HTTPRoute", "shop", limitsV1("per-client", 2, "1m")))

	eventually(t, settle, func() error {
		if err := wantCondition(ctx, c, ns, "shop", policy.ConditionEnforced, metav1.ConditionTrue, policy.ReasonEnforced); err != nil {
			return err
		}
		if err := wantConditionV1(ctx, c, ns, "shop", kuadrant.ConditionEnforced, metav1.ConditionTrue, kuadrant.ReasonEnforced); err != nil {
			return err
		}
		got, err := readConfigMap(ctx, c, ns, "gw")
		if err != nil {
			return err
		}
		if diff := cmp.Diff([]string{"both/gw#both/shop=50/60", "both/shop=2/60"}, got.maxValues()); diff != "" {
			return fmt.Errorf("limits.yaml (-want +got):\n%s", diff)
		}
		if n := len(got.config.RateLimitPolicies); n != 1 {
			return fmt.Errorf("pluginconfig.yaml has %d policies, want 1", n)
		}
		return converged(ctx, c, ns)
	})
	got, err := readConfigMap(ctx, c, ns, "gw")
	if err != nil {
		t.Fatal(err)
	}
	codes := ServeFromConfigMap(t, got.cm, "GET", "shop.example.com", "/cart", "10.1.1.1:999", 3)
	if diff := cmp.Diff([]string{"OK", "OK", "OVER_LIMIT"}, codes); diff != "" {
		t.Errorf("three requests from one client through the ConfigMap (-want +got):\n%s", diff)
	}

	t.Run("no writes after steady state", func(t *testing.T) {
		time.Sleep(2 * time.Second) // the runs the convergence started end
		conds, data := snapshot(ctx, t, c, ns)
		before := ctl.writeCount()
		syncs := ctl.syncs.Load()
		// An annotation on the v1 policy is an event the controller runs on, and changes
		// nothing it compiles.
		var p kuadrantv1.RateLimitPolicy
		if err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: "shop"}, &p); err != nil {
			t.Fatal(err)
		}
		p.Annotations = map[string]string{"touched": "yes"}
		if err := c.Update(ctx, &p); err != nil {
			t.Fatal(err)
		}
		eventually(t, settle, func() error {
			if ctl.syncs.Load() < syncs+1 {
				return fmt.Errorf("the controller has not run since the v1 policy's annotation changed")
			}
			return nil
		})
		time.Sleep(2 * time.Second)
		if n := ctl.writeCount() - before; n != 0 {
			t.Errorf("the controller sent %d write requests after steady state, want 0", n)
		}
		conds2, data2 := snapshot(ctx, t, c, ns)
		if diff := cmp.Diff(conds, conds2); diff != "" {
			t.Errorf("conditions changed after steady state (-before +after):\n%s", diff)
		}
		if diff := cmp.Diff(data, data2); diff != "" {
			t.Errorf("ConfigMaps changed after steady state (-before +after):\n%s", diff)
		}
	})
	if errs := ctl.syncErrors(); len(errs) > 0 {
		t.Errorf("sync errors: %v", errs)
	}
}
