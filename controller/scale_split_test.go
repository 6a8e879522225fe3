package controller

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rlpkit/rlpkit/policy"
)

// scaleRoutes returns the number of routes of the split scale test: $RLPKIT_SCALE_ROUTES, or
// def.
func scaleRoutes(t testing.TB, def int) int {
	t.Helper()
	v := os.Getenv("RLPKIT_SCALE_ROUTES")
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("RLPKIT_SCALE_ROUTES=%q: want a number of routes", v)
	}
	return n
}

// scaleObjects returns a Gateway and n HTTPRoutes with a policy each, the policy of route i
// allowing i+1 a minute.
func scaleObjects(t testing.TB, ns string, n int) []client.Object {
	objs := make([]client.Object, 0, 1+2*n)
	objs = append(objs, gateway(ns, "gw", "*.example.com"))
	for i := range n {
		name := fmt.Sprintf("r%05d", i)
		objs = append(objs, route(ns, name, name+".example.com", "/", "gw"),
			rlp(t, ns, name, "HTTPRoute", name, limits("default", i+1, 60)))
	}
	return objs
}

// steadyCheck checks the scale scenario's end state: every policy of ns Enforced at its
// generation, and the Gateway's output complete (n limits and n PluginConfig policies, read
// as rlpkit serve reads the mounted ConfigMaps), each ConfigMap within the API server's limit
// and each part within MaxPartBytes. It returns the number of parts.
func steadyCheck(ctx context.Context, c client.Client, ns string, n int) (int, error) {
	var pols policy.RateLimitPolicyList
	if err := c.List(ctx, &pols, client.InNamespace(ns)); err != nil {
		return 0, err
	}
	done := 0
	for _, p := range pols.Items {
		if c := meta.FindStatusCondition(p.Status.Conditions, string(policy.ConditionEnforced)); c != nil && c.ObservedGeneration == p.Generation && c.Status == metav1.ConditionTrue {
			done++
		}
	}
	if done != n {
		return 0, fmt.Errorf("%d of %d policies are Enforced", done, n)
	}
	got, err := readConfigMap(ctx, c, ns, "gw")
	if err != nil {
		return 0, err
	}
	if len(got.limits) != n || len(got.config.RateLimitPolicies) != n {
		return 0, fmt.Errorf("the output has %d limits and %d policies, want %d", len(got.limits), len(got.config.RateLimitPolicies), n)
	}
	var cms corev1.ConfigMapList
	if err := c.List(ctx, &cms, client.InNamespace(ns), client.MatchingLabels{LabelManagedBy: ManagerName}); err != nil {
		return 0, err
	}
	parts := 0
	for _, cm := range cms.Items {
		size := 0
		for _, v := range cm.Data {
			size += len(v)
		}
		_, isPart := cm.Labels[LabelPart]
		if isPart {
			parts++
		}
		if size > MaxConfigMapBytes || isPart && size > MaxPartBytes {
			return 0, fmt.Errorf("ConfigMap %s holds %d bytes, over its limit", cm.Name, size)
		}
	}
	return parts, nil
}

// TestScaleSplit: $RLPKIT_SCALE_ROUTES (3,000 unless set: an output of three parts or
// more) HTTPRoutes with a policy each on one Gateway reach steady state: every status
// correct, the output complete and split within the limits; once there, events that change
// nothing bring no write. BenchmarkSteadyState runs the 10,000-route scenario.
func TestScaleSplit(t *testing.T) {
	if testing.Short() {
		t.Skip("creates thousands of objects")
	}
	n := scaleRoutes(t, 3000)
	cfg := apiServer(t)
	c := direct(t, cfg)
	ctx := context.Background()
	ns := namespace(t, c, "scale-split")
	ctl := startController(t, cfg, ns)

	start := time.Now()
	createConcurrently(t, c, scaleObjects(t, ns, n))
	created := time.Since(start)
	parts := 0
	eventually(t, 10*time.Minute, func() (err error) {
		parts, err = steadyCheck(ctx, c, ns, n)
		return err
	})
	if n >= 3000 && parts < 3 {
		t.Errorf("%d routes are split over %d parts, want 3 or more", n, parts)
	}
	scaleReport(t, ctl, fmt.Sprintf("%d HTTPRoutes and RateLimitPolicies, output in %d parts", n, parts), created, time.Since(start))

	// Steady: a run brought by an event that changes nothing writes nothing.
	time.Sleep(2 * time.Second)
	before, syncs := ctl.writeCount(), ctl.syncs.Load()
	gw := gateway(ns, "gw", "")
	if err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: "gw"}, gw); err != nil {
		t.Fatal(err)
	}
	gw.Annotations = map[string]string{"touched": "yes"}
	if err := c.Update(ctx, gw); err != nil {
		t.Fatal(err)
	}
	eventually(t, time.Minute, func() error {
		if ctl.syncs.Load() == syncs {
			return errNotYet
		}
		return nil
	})
	time.Sleep(2 * time.Second)
	if w := ctl.writeCount() - before; w != 0 {
		t.Errorf("the controller sent %d writes after steady state, want none", w)
	}
}
