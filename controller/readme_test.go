package controller_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rlpkit/rlpkit/controller"
	"github.com/rlpkit/rlpkit/kuadrant"
	"github.com/rlpkit/rlpkit/merge"
)

// readmeReconcile is the reconcile core the README's "Use as a library" section shows; a
// test keeps the two identical, and another runs it.
func readmeReconcile(ctx context.Context, c client.Client) error {
	in, err := controller.Read(ctx, c) // Gateways, HTTPRoutes, RateLimitPolicies of both APIs, Namespaces: a validated policy.Set
	if err != nil {
		return err
	}
	now := metav1.NewTime(time.Now().Truncate(time.Second))
	res, err := merge.Compile(in.Set, merge.Options{Now: now}) // apim.kuadrant.io/v1alpha1; kuadrant.io/v1 below
	if err != nil {
		return err
	}
	v1 := kuadrant.Compile(in.Set, kuadrant.Options{Now: now})
	for _, out := range in.Outputs(res, v1) { // per Gateway one ConfigMap, or its parts then their index; written when changed
		cms, werr := controller.ConfigMaps(out)
		for i := 0; i < len(cms) && werr == nil; i++ {
			switch want, have := cms[i], in.ConfigMaps[client.ObjectKeyFromObject(cms[i]).String()]; {
			case have == nil:
				werr = c.Create(ctx, want)
			case !equality.Semantic.DeepEqual(have.Data, want.Data):
				werr = c.Update(ctx, &corev1.ConfigMap{ObjectMeta: *have.ObjectMeta.DeepCopy(), Data: want.Data})
			}
		}
		err = errors.Join(err, werr)
	}
	for _, st := range in.Statuses(res, v1) { // then statuses, patched only when a condition changed
		if next := st.Patched(); !equality.Semantic.DeepEqual(next, st.Policy) {
			err = errors.Join(err, c.Status().Patch(ctx, next, client.MergeFromWithOptions(st.Policy, client.MergeFromWithOptimisticLock{})))
		}
	}
	return err
}

// TestREADMEReconcile checks that the README shows readmeReconcile's body.
func TestREADMEReconcile(t *testing.T) {
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	start := strings.Index(readme, "## Use as a library")
	if start < 0 {
		t.Fatal(`README.md has no "## Use as a library" section`)
	}
	code := readme[start:]
	code = code[strings.Index(code, "```go\n")+len("```go\n"):]
	code = code[:strings.Index(code, "```\n")]
	src, err := os.ReadFile("readme_test.go")
	if err != nil {
		t.Fatal(err)
	}
	body := string(src)
	body = body[strings.Index(body, "func readmeReconcile("):]
	body = body[strings.Index(body, "{\n")+2 : strings.Index(body, "\n}\n")+1]
	var want strings.Builder
	for _, line := range strings.SplitAfter(body, "\n") {
		want.WriteString(strings.TrimPrefix(line, "\t"))
	}
	if code != want.String() {
		t.Errorf("the README's reconcile is not readmeReconcile's body:\n--- README\n%s--- readme_test.go\n%s", code, want.String())
	}
	if n := strings.Count(code, "\n"); n >= 30 {
		t.Errorf("the README's reconcile has %d lines, want under 30", n)
	}
}
