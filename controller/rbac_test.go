package controller

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/rlpkit/rlpkit/kuadrant"
	"github.com/rlpkit/rlpkit/policy"
)

// TestExampleRBAC runs the controller, with leader election, as the ServiceAccount of
// examples/kubernetes/controller-rbac.yaml with exactly the rules that file grants: a
// permission missing there fails a run (forbidden) or the leader election. Policies of
// both RateLimitPolicy APIs and a TokenRateLimitPolicy are read and their statuses
// written, AuthPolicies listed and watched (their CRD is served), and both data planes are
// wired.
func TestExampleRBAC(t *testing.T) {
	cfg := apiServer(t)
	c := direct(t, cfg)
	ctx := context.Background()
	namespace(t, c, "rlpkit-system")
	data, err := os.ReadFile(filepath.Join("..", "examples", "kubernetes", "controller-rbac.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		var u unstructured.Unstructured
		if err := dec.Decode(&u.Object); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("controller-rbac.yaml: %v", err)
		}
		if len(u.Object) == 0 {
			continue
		}
		create(t, c, &u)
		t.Cleanup(func() { _ = c.Delete(ctx, &u) })
	}
	user, err := env.AddUser(envtest.User{
		Name:   "system:serviceaccount:rlpkit-system:rlpkit-controller",
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:rlpkit-system", "system:authenticated"},
	}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	asController := user.Config()
	asController.QPS, asController.Burst = cfg.QPS, cfg.Burst

	ns := namespace(t, c, "rbac")
	ctl := startControllerSyncing(t, asController, Options{DataPlane: dataPlaneOptions}, func(o *ctrl.Options) {
		o.LeaderElection = true
		o.LeaderElectionID = "rlpkit-controller.rlpkit.dev"
		o.LeaderElectionNamespace = "rlpkit-system"
		o.LeaderElectionReleaseOnCancel = true
	}, ns)
	create(t, c, gateway(ns, "gw", "*.example.com"),
		route(ns, "shop", "shop.example.com", "/", "gw"),
		rlp(t, ns, "shop-policy", "HTTPRoute", "shop", limits("default", 9, 60)),
		rlpV1(t, ns, "shop-policy-v1", "HTTPRoute", "shop", limitsV1("per-client", 8, "1m")),
		trlp(t, ns, "shop-tokens", "HTTPRoute", "shop", "limits:\n  all: {rates: [{limit: 1000, window: 1m}]}\n"))
	eventually(t, settle, func() error {
		if errs := ctl.syncErrors(); len(errs) > 0 {
			return fmt.Errorf("a run failed with the example's RBAC: %v", errs[0])
		}
		if err := wantCondition(ctx, c, ns, "shop-policy", policy.ConditionEnforced, metav1.ConditionTrue, policy.ReasonEnforced); err != nil {
			return err
		}
		if err := wantConditionV1(ctx, c, ns, "shop-policy-v1", kuadrant.ConditionEnforced, metav1.ConditionTrue, kuadrant.ReasonEnforced); err != nil {
			return err
		}
		if cond, err := conditionToken(ctx, c, ns, "shop-tokens", kuadrant.ConditionEnforced); err != nil || cond.Reason != kuadrant.ReasonEnforced {
			return fmt.Errorf("TokenRateLimitPolicy shop-tokens: Enforced %+v, %v, want Enforced", cond, err)
		}
		got, err := readConfigMap(ctx, c, ns, "gw")
		if err != nil {
			return err
		}
		if diff := cmp.Diff([]string{"rbac/gw#rbac/shop=9/60", "rbac/shop=1000/60", "rbac/shop=8/60"}, got.maxValues()); diff != "" {
			return fmt.Errorf("limits (-want +got):\n%s", diff)
		}
		for _, o := range []struct {
			kind schema.GroupVersionKind
			name string
		}{{WasmPluginKind, "rlpkit-gw"}, {WasmPluginKind, "rlpkit-gw-kuadrant"}, {EnvoyFilterKind, "rlpkit-gw-ratelimit"}, {EnvoyExtensionPolicyKind, "rlpkit-gw"}, {EnvoyPatchPolicyKind, "rlpkit-gw-ratelimit"}} {
			if _, err := getUnstructured(ctx, c, o.kind, ns, o.name); err != nil {
				return err
			}
		}
		return nil
	})
	// The Lease shows the controller was elected.
	var lease coordinationv1.Lease
	if err := c.Get(ctx, types.NamespacedName{Namespace: "rlpkit-system", Name: "rlpkit-controller.rlpkit.dev"}, &lease); err != nil {
		t.Errorf("the leader election Lease: %v", err)
	}
	ctl.stop()
	for _, err := range ctl.syncErrors() {
		if !errors.Is(err, context.Canceled) { // a run cut short by the stop is no failure
			t.Errorf("a run failed with the example's RBAC: %v", err)
		}
	}
}
