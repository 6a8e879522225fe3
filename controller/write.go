package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// writeOp is what a write did.
type writeOp int

const (
	wroteNothing writeOp = iota
	wroteCreate
	wroteUpdate
	wroteDelete
)

// describeObject names an object in errors: "ConfigMap namespace/name".
func describeObject(o client.Object) string {
	kind := o.GetObjectKind().GroupVersionKind().Kind
	if _, ok := o.(*corev1.ConfigMap); ok {
		kind = "ConfigMap" // objects read from a cache have no kind
	}
	return kind + " " + key(o)
}

// create creates want, unless Sync created it less than staleAfter ago (the cache has not
// seen it yet: creating it again would fail, and the cache's event for it brings the run that
// updates it).
func (s *Syncer) create(ctx context.Context, c client.Client, want client.Object) (writeOp, error) {
	what := describeObject(want) // before Create, which may clear the kind
	createKey := types.UID("create " + what)
	if s.mem.created(createKey) {
		return wroteNothing, nil
	}
	if err := c.Create(ctx, want, client.FieldOwner(ManagerName)); err != nil {
		return wroteNothing, fmt.Errorf("create %s: %w%s", what, err, notOurs(what, err))
	}
	s.mem.wrote(createKey, "", nil)
	return wroteCreate, nil
}

// update writes next, a copy of have changed to hold want, unless Sync already wrote want to
// have's resourceVersion (the cache has not caught up with that write yet).
func (s *Syncer) update(ctx context.Context, c client.Client, have, want, next client.Object) (writeOp, error) {
	content, err := json.Marshal(want)
	if err != nil {
		return wroteNothing, err
	}
	if s.mem.seen(have.GetUID(), have.GetResourceVersion(), content) {
		return wroteNothing, nil
	}
	what := describeObject(want)
	if err := c.Update(ctx, next, client.FieldOwner(ManagerName)); err != nil {
		return wroteNothing, fmt.Errorf("update %s: %w", what, err)
	}
	s.mem.wrote(have.GetUID(), have.GetResourceVersion(), content)
	return wroteUpdate, nil
}

// remove deletes an object Sync no longer writes (a part of a split output that has fewer
// parts now), unless it did less than staleAfter ago. An object already gone is no error.
func (s *Syncer) remove(ctx context.Context, c client.Client, o client.Object) (writeOp, error) {
	uid := o.GetUID()
	what := describeObject(o)
	deleteKey := types.UID("delete " + what + " " + string(uid))
	if s.mem.created(deleteKey) {
		return wroteNothing, nil
	}
	err := c.Delete(ctx, o, client.Preconditions{UID: &uid})
	if err != nil && !apierrors.IsNotFound(err) {
		return wroteNothing, fmt.Errorf("delete %s: %w", what, err)
	}
	s.mem.wrote(deleteKey, "", nil)
	s.mem.forget(uid)
	return wroteDelete, nil
}

// writeConfigMap creates want when have is nil, and updates have when its data, labels or
// owner differ from want's.
func (s *Syncer) writeConfigMap(ctx context.Context, c client.Client, want, have *corev1.ConfigMap) (writeOp, error) {
	if have == nil {
		return s.create(ctx, c, want)
	}
	if equality.Semantic.DeepEqual(have.Data, want.Data) && len(have.BinaryData) == 0 &&
		hasLabels(have.Labels, want.Labels) && equality.Semantic.DeepEqual(have.OwnerReferences, want.OwnerReferences) {
		return wroteNothing, nil
	}
	next := have.DeepCopy()
	next.Data = want.Data
	next.BinaryData = nil
	next.Labels = withLabels(next.Labels, want.Labels)
	next.OwnerReferences = want.OwnerReferences
	return s.update(ctx, c, have, want, next)
}

// writeUnstructured creates want when have is nil, and updates have when its spec does not
// hold want's (fields the API server added, such as defaults, are not differences), or its
// labels or owner differ.
func (s *Syncer) writeUnstructured(ctx context.Context, c client.Client, want, have *unstructured.Unstructured) (writeOp, error) {
	if have == nil {
		return s.create(ctx, c, want)
	}
	if holds(have.Object["spec"], want.Object["spec"]) && hasLabels(have.GetLabels(), want.GetLabels()) &&
		equality.Semantic.DeepEqual(have.GetOwnerReferences(), want.GetOwnerReferences()) {
		return wroteNothing, nil
	}
	next := have.DeepCopy()
	next.Object["spec"] = want.Object["spec"]
	next.SetLabels(withLabels(next.GetLabels(), want.GetLabels()))
	next.SetOwnerReferences(want.GetOwnerReferences())
	return s.update(ctx, c, have, want, next)
}

// holds says whether have holds want: every field of a map of want is in have's and holds
// its value, lists have the same length and hold want's items in order, and other values are
// equal (numbers by value).
func holds(have, want any) bool {
	switch w := want.(type) {
	case map[string]any:
		h, ok := have.(map[string]any)
		if !ok {
			return false
		}
		for k, wv := range w {
			hv, ok := h[k]
			if !ok || !holds(hv, wv) {
				return false
			}
		}
		return true
	case []any:
		h, ok := have.([]any)
		if !ok || len(h) != len(w) {
			return false
		}
		for i := range w {
			if !holds(h[i], w[i]) {
				return false
			}
		}
		return true
	}
	if hf, ok := number(have); ok {
		wf, ok := number(want)
		return ok && hf == wf
	}
	return reflect.DeepEqual(have, want)
}

// number returns v as a float64 when it is a number of unstructured content.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, true
	case int:
		return float64(n), true
	}
	return 0, false
}

// hasLabels says whether have holds every label of want.
func hasLabels(have, want map[string]string) bool {
	for k, v := range want {
		if have[k] != v {
			return false
		}
	}
	return true
}

// withLabels returns have with want's labels set.
func withLabels(have, want map[string]string) map[string]string {
	if have == nil {
		have = map[string]string{}
	}
	maps.Copy(have, want)
	return have
}

// notOurs explains an AlreadyExists error of a create: the object exists without the label,
// so rlpkit-controller did not see it.
func notOurs(what string, err error) string {
	if !apierrors.IsAlreadyExists(err) {
		return ""
	}
	kind, _, _ := strings.Cut(what, " ")
	return " (a " + kind + " without the label " + LabelManagedBy + "=" + ManagerName + " is not rlpkit-controller's, and it leaves it alone: delete or rename it)"
}

// controllerOf returns the UID of the object's controlling owner, if any.
func controllerOf(o metav1.Object) types.UID {
	if ref := metav1.GetControllerOf(o); ref != nil {
		return ref.UID
	}
	return ""
}
