package controller

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/rlpkit/rlpkit/bundle"
	"github.com/rlpkit/rlpkit/kuadrant"
	"github.com/rlpkit/rlpkit/merge"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policy/kuadrantv1"
)

// managedConfigMaps returns the managed ConfigMaps of the namespace by name.
func managedConfigMaps(t *testing.T, c client.Client, ns string) map[string]*corev1.ConfigMap {
	t.Helper()
	var list corev1.ConfigMapList
	if err := c.List(context.Background(), &list, client.InNamespace(ns), client.MatchingLabels{LabelManagedBy: ManagerName}); err != nil {
		t.Fatal(err)
	}
	out := map[string]*corev1.ConfigMap{}
	for i := range list.Items {
		out[list.Items[i].Name] = &list.Items[i]
	}
	return out
}

// wantOutput checks that what c holds for Gateway ns/gw reads back, as rlpkit serve reads a
// mounted set, as the files one compile of c's objects gives, and that every ConfigMap holds
// at most max bytes. It returns the number of parts.
func wantOutput(t *testing.T, c client.Client, ns, gw string, max int) int {
	t.Helper()
	ctx := context.Background()
	in, err := Read(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	res, err := merge.Compile(in.Set, merge.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var files map[string]string
	for _, out := range in.Outputs(res, kuadrant.Compile(in.Set, kuadrant.Options{})) {
		if out.Name() == ns+"/"+gw {
			if files, err = out.Files(); err != nil {
				t.Fatal(err)
			}
		}
	}
	cms := managedConfigMaps(t, c, ns)
	parts := 0
	for name, cm := range cms {
		size := 0
		for _, v := range cm.Data {
			size += len(v)
		}
		if size > max {
			t.Errorf("ConfigMap %s holds %d bytes, want at most %d", name, size, max)
		}
		if _, ok := cm.Labels[LabelPart]; ok {
			parts++
		}
	}
	got, err := readConfigMap(ctx, c, ns, gw)
	if err != nil {
		t.Fatal(err)
	}
	mounted, err := mountOutput(ctx, c, got.cm)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range files {
		data, err := bundle.ReadFile(mounted, k)
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		if string(data) != want {
			t.Errorf("%s as mounted differs from the compiled file (%d bytes, want %d)", k, len(data), len(want))
		}
	}
	return parts
}

// TestSyncSplitOutput: an output larger than one ConfigMap is split into parts and an
// index, reads back whole, is rewritten only when it changes, shrinks (the parts it no
// longer needs are deleted) and returns to one ConfigMap with today's keys when it fits.
func TestSyncSplitOutput(t *testing.T) {
	ctx := context.Background()
	const ns, n, maxOne, maxPart = "ns", 120, 16 << 10, 6 << 10
	objs := append([]client.Object{gateway(ns, "gw", "*.example.com")}, routesWithPolicies(t, ns, "gw", n, false)...)
	writes := 0
	c := fakeOf(t, writeCounter(&writes, nil), objs...)
	s := &Syncer{maxOne: maxOne, maxPart: maxPart}
	sum, err := s.Sync(ctx, c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	parts := wantOutput(t, c, ns, "gw", maxOne)
	if parts < 3 || sum.ConfigMapsCreated != parts+1 {
		t.Fatalf("Sync created %d ConfigMaps with %d parts, want 3 parts or more and their index", sum.ConfigMapsCreated, parts)
	}
	index := managedConfigMaps(t, c, ns)[ConfigMapName("gw")]
	if _, ok := index.Data[KeyIndex]; !ok || len(index.Data) != 1 {
		t.Errorf("the ConfigMap %s holds %v, want only the index %s", ConfigMapName("gw"), keys(index.Data), KeyIndex)
	}
	if sum.StatusPatches != n {
		t.Errorf("Sync patched %d statuses, want %d", sum.StatusPatches, n)
	}

	before := writes
	if _, err := s.Sync(ctx, c, Options{}); err != nil {
		t.Fatal(err)
	}
	if n := writes - before; n != 0 {
		t.Errorf("a second Sync of unchanged objects sent %d writes, want none", n)
	}

	// Half the routes go: fewer parts, the others deleted.
	for _, o := range objs[1+n:] {
		if err := c.Delete(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	sum, err = s.Sync(ctx, c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	fewer := wantOutput(t, c, ns, "gw", maxOne)
	if fewer >= parts || sum.ConfigMapsDeleted != parts-fewer {
		t.Errorf("after half the routes went: %d parts (was %d), %d deleted, want fewer parts and the others deleted", fewer, parts, sum.ConfigMapsDeleted)
	}

	// Nearly all go: one ConfigMap again, with today's keys, and no part left.
	for _, o := range objs[1+10 : 1+n] {
		if err := c.Delete(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Sync(ctx, c, Options{}); err != nil {
		t.Fatal(err)
	}
	if n := wantOutput(t, c, ns, "gw", maxOne); n != 0 {
		t.Errorf("%d parts are left once the output fits in one ConfigMap, want none", n)
	}
	cms := managedConfigMaps(t, c, ns)
	if diff := cmp.Diff([]string{KeyKuadrantLimits, KeyKuadrantWasm, KeyLimits, KeyPluginConfig}, keys(cms[ConfigMapName("gw")].Data)); len(cms) != 1 || diff != "" {
		t.Errorf("ConfigMaps %v; keys (-want +got):\n%s", keys(cms), diff)
	}
}

// keys returns a map's keys, sorted.
func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestSyncFailedWrite: a ConfigMap the API server refuses leaves the policies it would
// enforce Enforced=False, naming the ConfigMap and the API server's answer, while the
// policies of another Gateway are enforced; the next Sync retries and enforces them. A part
// refused does the same, and the index is not written.
func TestSyncFailedWrite(t *testing.T) {
	for _, tc := range []struct {
		name   string
		refuse string // the ConfigMap refused
		v1     bool
	}{
		{"one ConfigMap", "rlpkit-gw", false},
		{"one ConfigMap, kuadrant.io/v1", "rlpkit-gw", true},
		{"a part", "rlpkit-gw-part-2", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			const ns = "ns"
			objs := []client.Object{gateway(ns, "gw", "*.example.com"), gateway(ns, "other", "*.other.com"),
				route(ns, "o", "o.other.com", "/", "other"), rlp(t, ns, "o", "HTTPRoute", "o", limits("default", 5, 60))}
			objs = append(objs, routesWithPolicies(t, ns, "gw", 60, tc.v1)...)
			writes := 0
			refusing := true
			c := fakeOf(t, writeCounter(&writes, func(verb string, o client.Object) error {
				if _, ok := o.(*corev1.ConfigMap); ok && refusing && o.GetName() == tc.refuse {
					return fmt.Errorf("configmaps %q is forbidden: exceeded quota", o.GetName())
				}
				return nil
			}), objs...)
			s := &Syncer{maxOne: 8 << 10, maxPart: 4 << 10}
			if tc.refuse == "rlpkit-gw" {
				s.maxOne = MaxConfigMapBytes
			}
			_, err := s.Sync(ctx, c, Options{})
			if err == nil || !strings.Contains(err.Error(), "exceeded quota") {
				t.Fatalf("Sync = %v, want the refused write's error", err)
			}
			reason, enforcedType := string(ReasonWriteFailed), string(policy.ConditionEnforced)
			if tc.v1 {
				reason = kuadrant.ReasonUnknown
			}
			for _, name := range []string{"r0000", "r0059"} {
				cond := enforcedOf(t, c, ns, name, tc.v1)
				if cond == nil || cond.Status != "False" || cond.Reason != reason ||
					!strings.Contains(cond.Message, "create ConfigMap ns/"+tc.refuse) || !strings.Contains(cond.Message, "exceeded quota") {
					t.Errorf("policy %s: %s = %+v, want False (%s) naming ConfigMap ns/%s and the API server's answer", name, enforcedType, cond, reason, tc.refuse)
				}
			}
			if cond := enforcedOf(t, c, ns, "o", false); cond == nil || cond.Status != "True" {
				t.Errorf("the other Gateway's policy: Enforced = %+v, want True", cond)
			}
			if _, ok := managedConfigMaps(t, c, ns)[ConfigMapName("gw")]; ok && tc.refuse != "rlpkit-gw" {
				t.Errorf("the index ConfigMap was written though a part was refused")
			}

			refusing = false
			if _, err := s.Sync(ctx, c, Options{}); err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{"r0000", "r0059"} {
				if cond := enforcedOf(t, c, ns, name, tc.v1); cond == nil || cond.Status != "True" {
					t.Errorf("after the retry, policy %s: Enforced = %+v, want True", name, cond)
				}
			}
		})
	}
}

// enforcedOf returns the Enforced condition of a policy, read from c.
func enforcedOf(t *testing.T, c client.Client, ns, name string, v1 bool) *metav1.Condition {
	t.Helper()
	var conds []metav1.Condition
	if v1 {
		var p kuadrantv1.RateLimitPolicy
		if err := c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, &p); err != nil {
			t.Fatal(err)
		}
		conds = p.Status.Conditions
	} else {
		var p policy.RateLimitPolicy
		if err := c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, &p); err != nil {
			t.Fatal(err)
		}
		conds = p.Status.Conditions
	}
	return meta.FindStatusCondition(conds, string(policy.ConditionEnforced))
}

// TestSyncManyGateways: Gateways written at once, each output split, all read back whole
// and are not written again.
func TestSyncManyGateways(t *testing.T) {
	ctx := context.Background()
	const ns, gateways, routes = "ns", 12, 10
	var objs []client.Object
	for g := range gateways {
		name := fmt.Sprintf("gw%02d", g)
		objs = append(objs, gateway(ns, name, "*.example.com"))
		for _, o := range routesWithPolicies(t, ns, name, routes, g%2 == 1) {
			o.SetName(name + "-" + o.GetName())
			switch o := o.(type) {
			case *policy.RateLimitPolicy:
				o.Spec.TargetRef.Name = gatewayv1.ObjectName(o.Name)
			case *kuadrantv1.RateLimitPolicy:
				o.Spec.TargetRef.Name = gatewayv1.ObjectName(o.Name)
			}
			objs = append(objs, o)
		}
	}
	writes := 0
	c := fakeOf(t, writeCounter(&writes, nil), objs...)
	s := &Syncer{maxOne: 4 << 10, maxPart: 2 << 10}
	if _, err := s.Sync(ctx, c, Options{StatusWorkers: 8}); err != nil {
		t.Fatal(err)
	}
	in, err := Read(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	res, err := merge.Compile(in.Set, merge.Options{})
	if err != nil {
		t.Fatal(err)
	}
	outs := in.Outputs(res, kuadrant.Compile(in.Set, kuadrant.Options{}))
	if len(outs) != gateways {
		t.Fatalf("%d outputs, want %d", len(outs), gateways)
	}
	for _, out := range outs {
		files, err := out.Files()
		if err != nil {
			t.Fatal(err)
		}
		got, err := readConfigMap(ctx, c, ns, out.Gateway.Name)
		if err != nil {
			t.Fatal(err)
		}
		mounted, err := mountOutput(ctx, c, got.cm)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := got.cm.Data[KeyIndex]; !ok {
			t.Errorf("Gateway %s: its output is not split", out.Name())
		}
		for k, want := range files {
			if data, err := bundle.ReadFile(mounted, k); err != nil || string(data) != want {
				t.Errorf("Gateway %s: %s as mounted: %v, differs from the compiled file", out.Name(), k, err)
			}
		}
	}
	for g := range gateways {
		name := fmt.Sprintf("gw%02d-r0000", g)
		if cond := enforcedOf(t, c, ns, name, g%2 == 1); cond == nil || cond.Status != "True" {
			t.Errorf("policy %s: Enforced = %+v, want True", name, cond)
		}
	}
	before := writes
	if _, err := s.Sync(ctx, c, Options{StatusWorkers: 8}); err != nil || writes != before {
		t.Errorf("a second Sync: %v, %d writes, want none", err, writes-before)
	}
}
