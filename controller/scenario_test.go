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
	"k8s.io/apimachinery/pkg/types"

	"github.com/rlpkit/rlpkit/policy"
)

const settle = 30 * time.Second

// TestLifecycle walks one Gateway through its life: objects created -> statuses and
// ConfigMap; a policy edited -> ConfigMap updated and observedGeneration follows; the route
// deleted -> TargetNotFound; no policy left -> the ConfigMap stays, empty.
func TestLifecycle(t *testing.T) {
	cfg := apiServer(t)
	c := direct(t, cfg)
	ctx := context.Background()
	ns := namespace(t, c, "lifecycle")
	ctl := startController(t, cfg, ns)

	gw := gateway(ns, "gw", "*.toystore.com")
	create(t, c, gw,
		route(ns, "toys", "api.toystore.com", "/toys", "gw"),
		rlp(t, ns, "gw-policy", "Gateway", "gw", limits("default", 100, 60)),
		rlp(t, ns, "toys-policy", "HTTPRoute", "toys", limits("default", 10, 1)))

	t.Run("created", func(t *testing.T) {
		eventually(t, settle, func() error {
			for _, name := range []string{"gw-policy", "toys-policy"} {
				if err := wantCondition(ctx, c, ns, name, policy.ConditionAccepted, metav1.ConditionTrue, policy.ReasonAccepted); err != nil {
					return err
				}
			}
			// The route's policy replaces the Gateway's limit of the same key on the route.
			if err := wantCondition(ctx, c, ns, "toys-policy", policy.ConditionEnforced, metav1.ConditionTrue, policy.ReasonEnforced); err != nil {
				return err
			}
			got, err := readConfigMap(ctx, c, ns, "gw")
			if err != nil {
				return err
			}
			// Different windows are different limits: the route's and the Gateway's both apply.
			if diff := cmp.Diff([]string{"lifecycle/gw#lifecycle/toys=10/1", "lifecycle/gw#lifecycle/toys=100/60"}, got.maxValues()); diff != "" {
				return fmt.Errorf("limits (-want +got):\n%s", diff)
			}
			if n := len(got.config.RateLimitPolicies); n != 1 {
				return fmt.Errorf("PluginConfig has %d policies, want 1", n)
			}
			return nil
		})
		var fresh = gateway(ns, "gw", "")
		if err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: "gw"}, fresh); err != nil {
			t.Fatal(err)
		}
		got, err := readConfigMap(ctx, c, ns, "gw")
		if err != nil {
			t.Fatal(err)
		}
		owners := got.cm.OwnerReferences
		if len(owners) != 1 || owners[0].UID != fresh.UID || owners[0].Kind != "Gateway" || owners[0].Controller == nil || !*owners[0].Controller {
			t.Errorf("ConfigMap owners = %+v, want the Gateway %s as controller", owners, fresh.UID)
		}
	})

	t.Run("edited", func(t *testing.T) {
		var p policy.RateLimitPolicy
		if err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: "toys-policy"}, &p); err != nil {
			t.Fatal(err)
		}
		p.Spec.Default.RateLimits[0].MaxValue = 20
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
			if diff := cmp.Diff([]string{"lifecycle/gw#lifecycle/toys=20/1", "lifecycle/gw#lifecycle/toys=100/60"}, got.maxValues()); diff != "" {
				return fmt.Errorf("limits (-want +got):\n%s", diff)
			}
			// condition checks observedGeneration == generation.
			return wantCondition(ctx, c, ns, "toys-policy", policy.ConditionAccepted, metav1.ConditionTrue, policy.ReasonAccepted)
		})
	})

	t.Run("route deleted", func(t *testing.T) {
		if err := c.Delete(ctx, route(ns, "toys", "", "/")); err != nil {
			t.Fatal(err)
		}
		eventually(t, settle, func() error {
			if err := wantCondition(ctx, c, ns, "toys-policy", policy.ConditionAccepted, metav1.ConditionFalse, policy.ReasonTargetNotFound); err != nil {
				return err
			}
			if err := wantCondition(ctx, c, ns, "gw-policy", policy.ConditionEnforced, metav1.ConditionFalse, policy.ReasonUnused); err != nil {
				return err
			}
			got, err := readConfigMap(ctx, c, ns, "gw")
			if err != nil {
				return err
			}
			if len(got.limits) != 0 || len(got.config.RateLimitPolicies) != 0 {
				return fmt.Errorf("ConfigMap still has %d limits and %d policies", len(got.limits), len(got.config.RateLimitPolicies))
			}
			return nil
		})
	})

	t.Run("no policy left", func(t *testing.T) {
		for _, name := range []string{"gw-policy", "toys-policy"} {
			if err := c.Delete(ctx, rlp(t, ns, name, "Gateway", "gw", "")); err != nil {
				t.Fatal(err)
			}
		}
		before := ctl.writeCount()
		time.Sleep(2 * time.Second) // the controller runs on the deletions
		got, err := readConfigMap(ctx, c, ns, "gw")
		if err != nil {
			t.Fatalf("the ConfigMap must stay when no policy is left: %v", err)
		}
		if got.cm.Data[KeyLimits] != "[]\n" {
			t.Errorf("limits = %q, want %q", got.cm.Data[KeyLimits], "[]\n")
		}
		if len(got.config.RateLimitPolicies) != 0 {
			t.Errorf("PluginConfig has %d policies, want none", len(got.config.RateLimitPolicies))
		}
		if n := ctl.writeCount() - before; n != 0 {
			t.Errorf("the controller wrote %d times after the last policies were deleted, want 0: the ConfigMap was already empty", n)
		}
	})
	if errs := ctl.syncErrors(); len(errs) > 0 {
		t.Errorf("sync errors: %v", errs)
	}
}

// TestInvalidPolicy: a policy the API server accepts but rlpkit's validation rejects is
// Accepted=False with reason Invalid and the problem; the other policies are unaffected.
func TestInvalidPolicy(t *testing.T) {
	cfg := apiServer(t)
	c := direct(t, cfg)
	ctx := context.Background()
	ns := namespace(t, c, "invalid")
	ctl := startController(t, cfg, ns)

	bad := limits("default", 5, 10)
	bad = strings.Replace(bad, "conditions: []", `conditions: ["user =! bob"]`, 1)
	create(t, c, gateway(ns, "gw", "*.example.com"),
		route(ns, "a", "a.example.com", "/", "gw"),
		route(ns, "b", "b.example.com", "/", "gw"),
		rlp(t, ns, "good", "HTTPRoute", "a", limits("default", 7, 60)),
		rlp(t, ns, "bad", "HTTPRoute", "b", bad))

	eventually(t, settle, func() error {
		cond, err := condition(ctx, c, ns, "bad", policy.ConditionAccepted)
		if err != nil {
			return err
		}
		if cond.Status != metav1.ConditionFalse || cond.Reason != string(policy.ReasonInvalid) || !strings.Contains(cond.Message, "spec.default.rateLimits[0].conditions[0]") {
			return fmt.Errorf("bad: Accepted = %s (%s: %s), want False (Invalid) naming spec.default.rateLimits[0].conditions[0]", cond.Status, cond.Reason, cond.Message)
		}
		if err := wantCondition(ctx, c, ns, "good", policy.ConditionEnforced, metav1.ConditionTrue, policy.ReasonEnforced); err != nil {
			return err
		}
		got, err := readConfigMap(ctx, c, ns, "gw")
		if err != nil {
			return err
		}
		if diff := cmp.Diff([]string{"invalid/gw#invalid/a=7/60"}, got.maxValues()); diff != "" {
			return fmt.Errorf("limits (-want +got):\n%s", diff)
		}
		return nil
	})

	t.Run("rejected by the CRD", func(t *testing.T) {
		// What the CRD's schema can check, the API server refuses.
		p := rlp(t, ns, "negative", "HTTPRoute", "a", limits("default", 1, 0))
		err := c.Create(ctx, p)
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "seconds") {
			t.Errorf("create a policy with seconds: 0 = %v, want Invalid naming seconds", err)
		}
		p = rlp(t, ns, "wrong-kind", "Service", "a", limits("default", 1, 1))
		err = c.Create(ctx, p)
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "kind must be Gateway or HTTPRoute") {
			t.Errorf("create a policy targeting a Service = %v, want Invalid: kind must be Gateway or HTTPRoute", err)
		}
	})
	if errs := ctl.syncErrors(); len(errs) > 0 {
		t.Errorf("sync errors: %v", errs)
	}
}

// TestTwoGateways: a route attached to two Gateways gets a domain on each; each Gateway's
// ConfigMap holds its own.
func TestTwoGateways(t *testing.T) {
	cfg := apiServer(t)
	c := direct(t, cfg)
	ctx := context.Background()
	ns := namespace(t, c, "two")
	startController(t, cfg, ns)

	create(t, c, gateway(ns, "public", "*.example.com"), gateway(ns, "internal", "*.example.com"),
		route(ns, "shop", "shop.example.com", "/", "public", "internal"),
		rlp(t, ns, "public-policy", "Gateway", "public", limits("default", 100, 60)),
		rlp(t, ns, "internal-policy", "Gateway", "internal", limits("default", 1000, 60)))

	eventually(t, settle, func() error {
		for gw, want := range map[string]string{"public": "two/public#two/shop=100/60", "internal": "two/internal#two/shop=1000/60"} {
			got, err := readConfigMap(ctx, c, ns, gw)
			if err != nil {
				return err
			}
			if diff := cmp.Diff([]string{want}, got.maxValues()); diff != "" {
				return fmt.Errorf("Gateway %s: limits (-want +got):\n%s", gw, diff)
			}
		}
		for _, name := range []string{"public-policy", "internal-policy"} {
			if err := wantCondition(ctx, c, ns, name, policy.ConditionEnforced, metav1.ConditionTrue, policy.ReasonEnforced); err != nil {
				return err
			}
		}
		return nil
	})
}

// TestOverrideAndConflict: a Gateway override replaces a route default of the same key
// (PartiallyEnforced: the route policy's gateway action still aggregates), and of two policies targeting one route the newer is Conflicted.
func TestOverrideAndConflict(t *testing.T) {
	cfg := apiServer(t)
	c := direct(t, cfg)
	ctx := context.Background()
	ns := namespace(t, c, "override")
	startController(t, cfg, ns)

	create(t, c, gateway(ns, "gw", "*.example.com"),
		route(ns, "shop", "shop.example.com", "/", "gw"),
		rlp(t, ns, "platform", "Gateway", "gw", limits("override", 50, 60)),
		rlp(t, ns, "team", "HTTPRoute", "shop", limits("default", 500, 60)))
	// Created later, so newer: Conflicted.
	time.Sleep(1100 * time.Millisecond) // creationTimestamp has a resolution of one second
	create(t, c, rlp(t, ns, "team-again", "HTTPRoute", "shop", limits("default", 5, 60)))

	eventually(t, settle, func() error {
		checks := []struct {
			name   string
			typ    policy.ConditionType
			status metav1.ConditionStatus
			reason policy.ConditionReason
		}{
			{"platform", policy.ConditionEnforced, metav1.ConditionTrue, policy.ReasonEnforced},
			{"team", policy.ConditionAccepted, metav1.ConditionTrue, policy.ReasonAccepted},
			// Its limit is overridden; its gateway action aggregates, so it is partly in effect.
			{"team", policy.ConditionEnforced, metav1.ConditionTrue, policy.ReasonPartiallyEnforced},
			{"team-again", policy.ConditionAccepted, metav1.ConditionFalse, policy.ReasonConflicted},
		}
		for _, ch := range checks {
			if err := wantCondition(ctx, c, ns, ch.name, ch.typ, ch.status, ch.reason); err != nil {
				return err
			}
		}
		got, err := readConfigMap(ctx, c, ns, "gw")
		if err != nil {
			return err
		}
		if diff := cmp.Diff([]string{"override/gw#override/shop=50/60"}, got.maxValues()); diff != "" {
			return fmt.Errorf("limits (-want +got):\n%s", diff)
		}
		return nil
	})
}
