package controller

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rlpkit/rlpkit/kuadrant"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policy/kuadrantv1"
)

// TestScale: 1,000 HTTPRoutes with a policy each, under one Gateway with its own policy,
// reconcile to every status and the ConfigMap; the time from the first create to the end is
// reported (and written to $RLPKIT_SCALE_REPORT when set).
func TestScale(t *testing.T) {
	if testing.Short() {
		t.Skip("creates 2,000 objects")
	}
	const n = 1000
	cfg := apiServer(t)
	c := direct(t, cfg)
	ctx := context.Background()
	ns := namespace(t, c, "scale")
	ctl := startController(t, cfg, ns)

	start := time.Now()
	create(t, c, gateway(ns, "gw", "*.example.com"), rlp(t, ns, "gw-policy", "Gateway", "gw", limits("default", 1000, 60)))
	objs := make([]client.Object, 0, 2*n)
	for i := range n {
		name := fmt.Sprintf("r%04d", i)
		objs = append(objs, route(ns, name, name+".example.com", "/", "gw"),
			rlp(t, ns, name, "HTTPRoute", name, limits("default", i+1, 60)))
	}
	createConcurrently(t, c, objs)
	created := time.Since(start)

	eventually(t, 5*time.Minute, func() error {
		got, err := readConfigMap(ctx, c, ns, "gw")
		if err != nil {
			return err
		}
		if len(got.limits) != n || len(got.config.RateLimitPolicies) != n {
			return fmt.Errorf("ConfigMap has %d limits and %d policies, want %d", len(got.limits), len(got.config.RateLimitPolicies), n)
		}
		var pols policy.RateLimitPolicyList
		if err := c.List(ctx, &pols, client.InNamespace(ns)); err != nil {
			return err
		}
		done := 0
		for _, p := range pols.Items {
			if c := meta.FindStatusCondition(p.Status.Conditions, string(policy.ConditionEnforced)); c != nil && c.ObservedGeneration == p.Generation &&
				(c.Status == metav1.ConditionTrue || p.Name == "gw-policy") {
				done++
			}
		}
		if done != n+1 {
			return fmt.Errorf("%d of %d policies have their final status", done, n+1)
		}
		return nil
	})
	scaleReport(t, ctl, fmt.Sprintf("%d HTTPRoutes and %d RateLimitPolicies", n, n+1), created, time.Since(start))
}

// createConcurrently creates the objects with eight writers, as several clients of a
// cluster would.
func createConcurrently(t testing.TB, c client.Client, objs []client.Object) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, len(objs))
	for w := range 8 {
		wg.Go(func() {
			for i := w; i < len(objs); i += 8 {
				if err := c.Create(context.Background(), objs[i]); err != nil {
					errs <- fmt.Errorf("create %s: %w", key(objs[i]), err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// scaleReport logs how long a scale test took, and appends it to $RLPKIT_SCALE_REPORT
// when set.
func scaleReport(t *testing.T, ctl *running, what string, created, total time.Duration) {
	t.Helper()
	report := fmt.Sprintf("%s: created in %v, reconciled (every status and the ConfigMap) %v after the first create, in %d controller runs with %d writes",
		what, created.Round(time.Millisecond), total.Round(time.Millisecond), ctl.syncs.Load(), ctl.writeCount())
	t.Log(report)
	if f := os.Getenv("RLPKIT_SCALE_REPORT"); f != "" {
		fh, err := os.OpenFile(f, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			_, err = fh.WriteString(report + "\n")
			if cerr := fh.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			t.Error(err)
		}
	}
	if errs := ctl.syncErrors(); len(errs) > 0 {
		t.Logf("%d runs failed and were retried; the first: %v", len(errs), errs[0])
	}
}

// TestScaleV1: TestScale with kuadrant.io/v1 policies: 1,000 HTTPRoutes with a policy each,
// under one Gateway whose policy they all override (atomic defaults).
func TestScaleV1(t *testing.T) {
	if testing.Short() {
		t.Skip("creates 2,000 objects")
	}
	const n = 1000
	cfg := apiServer(t)
	c := direct(t, cfg)
	ctx := context.Background()
	ns := namespace(t, c, "scale-v1")
	ctl := startController(t, cfg, ns)

	start := time.Now()
	create(t, c, gateway(ns, "gw", "*.example.com"), rlpV1(t, ns, "gw-policy", "Gateway", "gw", limitsV1("gateway", 1000, "1m")))
	objs := make([]client.Object, 0, 2*n)
	for i := range n {
		name := fmt.Sprintf("r%04d", i)
		objs = append(objs, route(ns, name, name+".example.com", "/", "gw"),
			rlpV1(t, ns, name, "HTTPRoute", name, limitsV1("route", i+1, "1m")))
	}
	createConcurrently(t, c, objs)
	created := time.Since(start)

	eventually(t, 5*time.Minute, func() error {
		got, err := readConfigMap(ctx, c, ns, "gw")
		if err != nil {
			return err
		}
		if len(got.v1Limits) != n || len(got.wasm.ActionSets) != n {
			return fmt.Errorf("ConfigMap has %d v1 limits and %d action sets, want %d", len(got.v1Limits), len(got.wasm.ActionSets), n)
		}
		var pols kuadrantv1.RateLimitPolicyList
		if err := c.List(ctx, &pols, client.InNamespace(ns)); err != nil {
			return err
		}
		done := 0
		for _, p := range pols.Items {
			want := metav1.ConditionTrue
			if p.Name == "gw-policy" {
				want = metav1.ConditionFalse // overridden by every route's policy
			}
			if c := meta.FindStatusCondition(p.Status.Conditions, kuadrant.ConditionEnforced); c != nil && c.ObservedGeneration == p.Generation && c.Status == want {
				done++
			}
		}
		if done != n+1 {
			return fmt.Errorf("%d of %d policies have their final status", done, n+1)
		}
		return nil
	})
	scaleReport(t, ctl, fmt.Sprintf("%d HTTPRoutes and %d kuadrant.io/v1 RateLimitPolicies", n, n+1), created, time.Since(start))
}
