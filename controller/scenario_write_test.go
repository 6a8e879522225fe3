package controller

import (
	"context"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rlpkit/rlpkit/kuadrant"
	"github.com/rlpkit/rlpkit/policy"
)

// TestFailedWriteNotEnforced: the API server refuses the Gateway's ConfigMap (one of that
// name exists that rlpkit-controller does not manage): its policies of both APIs are not
// Enforced, the condition names the ConfigMap and the API server's answer, while the
// policy of another Gateway is; once the name is free, a retry writes the ConfigMap and the
// policies are enforced.
func TestFailedWriteNotEnforced(t *testing.T) {
	cfg := apiServer(t)
	c := direct(t, cfg)
	ctx := context.Background()
	ns := namespace(t, c, "failed-write")
	foreign := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: ConfigMapName("gw")}, Data: map[string]string{"mine": "yes"}}
	create(t, c, foreign)
	ctl := startController(t, cfg, ns)
	create(t, c, gateway(ns, "gw", "*.example.com"), gateway(ns, "other", "*.other.com"),
		route(ns, "shop", "shop.example.com", "/", "gw"), rlp(t, ns, "shop", "HTTPRoute", "shop", limits("default", 7, 60)),
		route(ns, "api", "api.example.com", "/", "gw"), rlpV1(t, ns, "api", "HTTPRoute", "api", limitsV1("per-client", 3, "1m")),
		route(ns, "o", "o.other.com", "/", "other"), rlp(t, ns, "o", "HTTPRoute", "o", limits("default", 5, 60)))

	names := "ConfigMap " + ns + "/" + ConfigMapName("gw")
	eventually(t, settle, func() error {
		cond, err := condition(ctx, c, ns, "shop", policy.ConditionEnforced)
		if err != nil {
			return err
		}
		if cond.Status != metav1.ConditionFalse || cond.Reason != string(ReasonWriteFailed) || !strings.Contains(cond.Message, names) || !strings.Contains(cond.Message, "already exists") {
			return fmt.Errorf("shop: Enforced = %s (%s: %s), want False (%s) naming %s and the API server's answer", cond.Status, cond.Reason, cond.Message, ReasonWriteFailed, names)
		}
		v1, err := conditionV1(ctx, c, ns, "api", kuadrant.ConditionEnforced)
		if err != nil {
			return err
		}
		if v1.Status != metav1.ConditionFalse || v1.Reason != kuadrant.ReasonUnknown || !strings.Contains(v1.Message, names) {
			return fmt.Errorf("api: Enforced = %s (%s: %s), want False (%s) naming %s", v1.Status, v1.Reason, v1.Message, kuadrant.ReasonUnknown, names)
		}
		return wantCondition(ctx, c, ns, "o", policy.ConditionEnforced, metav1.ConditionTrue, policy.ReasonEnforced)
	})
	if errs := ctl.syncErrors(); len(errs) == 0 || !strings.Contains(errs[0].Error(), names) {
		t.Errorf("the runs' errors %v, want the refused create", errs)
	}
	var kept corev1.ConfigMap
	if err := c.Get(ctx, keyOf(foreign), &kept); err != nil || kept.Data["mine"] != "yes" {
		t.Errorf("the ConfigMap that is not rlpkit-controller's was changed: %v %v", kept.Data, err)
	}

	if err := c.Delete(ctx, foreign); err != nil {
		t.Fatal(err)
	}
	// The failed runs are retried with the work queue's growing back-off; an event of a
	// watched object (the unmanaged ConfigMap is not one) brings a run at once.
	gw := gateway(ns, "gw", "")
	if err := c.Get(ctx, keyOf(gw), gw); err != nil {
		t.Fatal(err)
	}
	gw.Annotations = map[string]string{"retry": "now"}
	if err := c.Update(ctx, gw); err != nil {
		t.Fatal(err)
	}
	eventually(t, settle, func() error {
		if err := wantCondition(ctx, c, ns, "shop", policy.ConditionEnforced, metav1.ConditionTrue, policy.ReasonEnforced); err != nil {
			return err
		}
		if err := wantConditionV1(ctx, c, ns, "api", kuadrant.ConditionEnforced, metav1.ConditionTrue, kuadrant.ReasonEnforced); err != nil {
			return err
		}
		_, err := readConfigMap(ctx, c, ns, "gw")
		return err
	})
}

// keyOf returns the object's key.
func keyOf(o metav1.Object) client.ObjectKey {
	return client.ObjectKey{Namespace: o.GetNamespace(), Name: o.GetName()}
}
