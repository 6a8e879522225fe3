package controller

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rlpkit/rlpkit/kuadrant"
	"github.com/rlpkit/rlpkit/merge"
	"github.com/rlpkit/rlpkit/policy"
)

// snapshot is what the controller wrote, read from the API server: every policy's
// conditions and every managed ConfigMap's data, by namespace/name.
func snapshot(ctx context.Context, t *testing.T, c client.Client, ns string) (map[string][]metav1.Condition, map[string]map[string]string) {
	t.Helper()
	var pols policy.RateLimitPolicyList
	if err := c.List(ctx, &pols, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	conds := map[string][]metav1.Condition{}
	for _, p := range pols.Items {
		conds[p.Name] = p.Status.Conditions
	}
	var cms corev1.ConfigMapList
	if err := c.List(ctx, &cms, client.InNamespace(ns), client.MatchingLabels{LabelManagedBy: ManagerName}); err != nil {
		t.Fatal(err)
	}
	data := map[string]map[string]string{}
	for _, cm := range cms.Items {
		data[cm.Name] = cm.Data
	}
	return conds, data
}

// converged checks that what the API server holds is what one Sync of its current objects
// computes: a dry run of Sync's decisions against the objects read without a cache.
func converged(ctx context.Context, c client.Client, ns string) error {
	in, err := Read(ctx, c)
	if err != nil {
		return err
	}
	res, err := merge.Compile(in.Set, merge.Options{})
	if err != nil {
		return err
	}
	v1 := kuadrant.Compile(in.Set, kuadrant.Options{})
	for _, st := range in.Statuses(res, v1) {
		p := st.Policy
		if p.GetNamespace() != ns {
			continue
		}
		if want := st.Patched(); !equality.Semantic.DeepEqual(want, p) {
			return fmt.Errorf("%s: status (-want +got):\n%s", describe(p), cmp.Diff(want, p))
		}
	}
	for _, out := range in.Outputs(res, v1) {
		if out.Gateway.Namespace != ns {
			continue
		}
		cms, err := ConfigMaps(out)
		if err != nil {
			return err
		}
		for _, want := range cms {
			have := in.ConfigMaps[key(want)]
			if have == nil {
				return fmt.Errorf("ConfigMap %s is missing", key(want))
			}
			if diff := cmp.Diff(want.Data, have.Data); diff != "" {
				return fmt.Errorf("ConfigMap %s (-want +got):\n%s", key(want), diff)
			}
		}
	}
	return nil
}

// TestRestartAndSteadyState: the controller stopped mid-way and restarted after changes
// converges to the state one Sync of the objects gives, and once there, it writes nothing
// more, whatever events arrive.
func TestRestartAndSteadyState(t *testing.T) {
	cfg := apiServer(t)
	c := direct(t, cfg)
	ctx := context.Background()
	ns := namespace(t, c, "restart")
	first := startController(t, cfg, ns)

	create(t, c, gateway(ns, "gw", "*.example.com"),
		route(ns, "a", "a.example.com", "/", "gw"),
		route(ns, "b", "b.example.com", "/", "gw"),
		rlp(t, ns, "gw-policy", "Gateway", "gw", limits("default", 100, 60)),
		rlp(t, ns, "a-policy", "HTTPRoute", "a", limits("default", 10, 60)))
	eventually(t, settle, func() error { return converged(ctx, c, ns) })

	// Stopped mid-way: changes arrive while no controller runs.
	first.stop()
	var p policy.RateLimitPolicy
	if err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: "a-policy"}, &p); err != nil {
		t.Fatal(err)
	}
	p.Spec.Default.RateLimits[0].MaxValue = 11
	if err := c.Update(ctx, &p); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, route(ns, "b", "", "/")); err != nil {
		t.Fatal(err)
	}
	create(t, c, route(ns, "c", "c.example.com", "/", "gw"), rlp(t, ns, "c-policy", "HTTPRoute", "c", limits("default", 3, 1)))
	if err := converged(ctx, c, ns); err == nil {
		t.Fatal("the state converged without a controller: the test changes nothing")
	}

	second := startController(t, cfg, ns)
	eventually(t, settle, func() error { return converged(ctx, c, ns) })
	got, err := readConfigMap(ctx, c, ns, "gw")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"restart/gw#restart/a=11/60", "restart/gw#restart/c=3/1", "restart/gw#restart/c=100/60"}
	if diff := cmp.Diff(want, got.maxValues()); diff != "" {
		t.Errorf("limits after the restart (-want +got):\n%s", diff)
	}

	t.Run("no writes after steady state", func(t *testing.T) {
		// Let the controller finish the runs the convergence started.
		time.Sleep(2 * time.Second)
		conds, data := snapshot(ctx, t, c, ns)
		before := second.writeCount()
		syncs := second.syncs.Load()
		// Events that change nothing rlpkit compiles: an annotation on a Gateway, a label
		// on the namespace, a managed ConfigMap's annotation.
		var gw = gateway(ns, "gw", "")
		if err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: "gw"}, gw); err != nil {
			t.Fatal(err)
		}
		gw.Annotations = map[string]string{"touched": "yes"}
		if err := c.Update(ctx, gw); err != nil {
			t.Fatal(err)
		}
		eventually(t, settle, func() error {
			if second.syncs.Load() < syncs+1 {
				return fmt.Errorf("the controller has not run since the Gateway's annotation changed")
			}
			return nil
		})
		var nsObj corev1.Namespace
		if err := c.Get(ctx, types.NamespacedName{Name: ns}, &nsObj); err != nil {
			t.Fatal(err)
		}
		nsObj.Labels["touched"] = "yes"
		if err := c.Update(ctx, &nsObj); err != nil {
			t.Fatal(err)
		}
		eventually(t, settle, func() error {
			if second.syncs.Load() < syncs+2 {
				return fmt.Errorf("the controller ran %d times since, want at least 2", second.syncs.Load()-syncs)
			}
			return nil
		})
		time.Sleep(2 * time.Second)
		if n := second.writeCount() - before; n != 0 {
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
	if errs := second.syncErrors(); len(errs) > 0 {
		t.Errorf("sync errors: %v", errs)
	}
}
