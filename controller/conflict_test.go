package controller

import (
	"context"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/rlpkit/rlpkit/policyapi"
)

// TestPatchStatusConflict checks that a status patch refused for a stale resourceVersion
// is no error (the change that made it stale triggers the next Sync) and is not
// remembered as written, while any other refusal is an error.
func TestPatchStatusConflict(t *testing.T) {
	p := rlp(t, "ns", "shop", "Gateway", "gw", limits("default", 1, 60))
	st := PolicyStatus{Policy: p, PolicyStatus: policyapi.PolicyStatus{Name: p.Namespace + "/" + p.Name, Conditions: []metav1.Condition{{Type: "Accepted", Status: metav1.ConditionTrue, Reason: "Accepted", Message: "ok"}}}}
	for _, tc := range []struct {
		name    string
		refusal error
		wantErr bool
	}{
		{"conflict", apierrors.NewConflict(schema.GroupResource{Group: "apim.kuadrant.io", Resource: "ratelimitpolicies"}, "shop", nil), false},
		{"forbidden", apierrors.NewForbidden(schema.GroupResource{Group: "apim.kuadrant.io", Resource: "ratelimitpolicies"}, "shop", nil), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := fakeOf(t, &interceptor.Funcs{SubResourcePatch: func(context.Context, client.Client, string, client.Object, client.Patch, ...client.SubResourcePatchOption) error {
				return tc.refusal
			}}, p.DeepCopy())
			var s Syncer
			patched, err := s.patchStatus(context.Background(), c, st)
			if patched || (err != nil) != tc.wantErr {
				t.Fatalf("patchStatus = %v, %v; want false and an error %v", patched, err, tc.wantErr)
			}
			if s.mem.size() != 0 {
				t.Errorf("a refused patch is remembered as written (%d records)", s.mem.size())
			}
		})
	}
}
