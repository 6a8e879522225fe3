package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rlpkit/rlpkit/kuadrant"
	"github.com/rlpkit/rlpkit/merge"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policy/kuadrantv1"
	"github.com/rlpkit/rlpkit/policyapi"
)

// managedTypes are the condition types rlpkit-controller writes on policies of both APIs.
var managedTypes = []string{string(policy.ConditionAccepted), string(policy.ConditionEnforced)}

// Conditions returns the conditions a policy's status should hold: current with each of
// want set as meta.SetStatusCondition sets it (lastTransitionTime changes only with the
// status), observedGeneration being the policy's generation. A condition of a type
// rlpkit-controller writes (Accepted, Enforced) that want lacks is removed: compiling no
// longer finds it (a policy whose target is gone is not enforced). Conditions of other types,
// written by others, are kept.
func Conditions(current []metav1.Condition, want []metav1.Condition, generation int64) []metav1.Condition {
	out := make([]metav1.Condition, 0, len(current))
	for i := range current {
		if slices.Contains(managedTypes, current[i].Type) && meta.FindStatusCondition(want, current[i].Type) == nil {
			continue
		}
		var c metav1.Condition
		current[i].DeepCopyInto(&c)
		out = append(out, c)
	}
	for _, c := range want {
		c.ObservedGeneration = generation
		c.Message = truncate(c.Message, maxMessage)
		meta.SetStatusCondition(&out, c)
	}
	return out
}

// WithConditions returns a copy of p whose status conditions are Conditions(p's, want,
// p's generation).
func WithConditions(p *policy.RateLimitPolicy, want []metav1.Condition) *policy.RateLimitPolicy {
	next := p.DeepCopy()
	next.Status.Conditions = Conditions(p.Status.Conditions, want, p.Generation)
	return next
}

// WithConditionsV1 returns a copy of the kuadrant.io/v1 policy p whose status conditions
// are Conditions(p's, want, p's generation) and whose status.observedGeneration is p's
// generation, as kuadrant-operator writes them: a policy not accepted has no Enforced
// condition, so one left from earlier is removed.
func WithConditionsV1(p *kuadrantv1.RateLimitPolicy, want []metav1.Condition) *kuadrantv1.RateLimitPolicy {
	next := p.DeepCopy()
	next.Status.Conditions = Conditions(p.Status.Conditions, want, p.Generation)
	if meta.IsStatusConditionFalse(next.Status.Conditions, kuadrant.ConditionAccepted) {
		meta.RemoveStatusCondition(&next.Status.Conditions, kuadrant.ConditionEnforced)
	}
	next.Status.ObservedGeneration = p.Generation
	return next
}

// PolicyStatus is the status Sync wants for one RateLimitPolicy of either API: the
// contract's status compiling computed (package merge's or package kuadrant's), as it is,
// with the policy it is for.
type PolicyStatus struct {
	// Policy is the policy as read: a *policy.RateLimitPolicy or a
	// *kuadrantv1.RateLimitPolicy. It is not modified.
	Policy client.Object
	// PolicyStatus holds the conditions to write.
	policyapi.PolicyStatus
}

// Patched returns a copy of the policy with its status set to the Conditions
// (WithConditions or WithConditionsV1).
func (s PolicyStatus) Patched() client.Object {
	switch p := s.Policy.(type) {
	case *policy.RateLimitPolicy:
		return WithConditions(p, s.Conditions)
	case *kuadrantv1.RateLimitPolicy:
		return WithConditionsV1(p, s.Conditions)
	}
	panic(fmt.Sprintf("controller: PolicyStatus.Policy is a %T, want a *policy.RateLimitPolicy or *kuadrantv1.RateLimitPolicy", s.Policy))
}

// Statuses returns the status of every policy of in that a result holds: those of res
// (apim.kuadrant.io/v1alpha1) and of v1 (kuadrant.io/v1), in that order; either may be
// nil.
func (in *Input) Statuses(res *merge.Result, v1 *kuadrant.Result) []PolicyStatus {
	var out []PolicyStatus
	if res != nil {
		for _, st := range res.Policies {
			if p, ok := in.Policies[st.Name]; ok {
				out = append(out, PolicyStatus{Policy: p, PolicyStatus: st})
			}
		}
	}
	if v1 != nil {
		for _, st := range v1.Policies {
			if p, ok := in.PoliciesV1[st.Name]; ok {
				out = append(out, PolicyStatus{Policy: p, PolicyStatus: st})
			}
		}
	}
	return out
}

// describe names a policy in errors: its kind, API and namespace/name.
func describe(o client.Object) string {
	api := APIV1alpha1
	if _, ok := o.(*kuadrantv1.RateLimitPolicy); ok {
		api = APIV1
	}
	return fmt.Sprintf("RateLimitPolicy %s %s", api, key(o))
}

// patchStatus patches a policy's status when it differs from what st wants, and says
// whether it did. The patch is a JSON merge patch of the status carrying the
// resourceVersion it was computed from; a conflict (the policy changed meanwhile) is no
// error: the next Sync, which the change triggers, patches from the new version.
func (s *Syncer) patchStatus(ctx context.Context, c client.Client, st PolicyStatus) (bool, error) {
	p := st.Policy
	patched := st.Patched()
	if equality.Semantic.DeepEqual(patched, p) {
		return false, nil
	}
	content, err := json.Marshal(patched)
	if err != nil {
		return false, err
	}
	if s.mem.seen(p.GetUID(), p.GetResourceVersion(), content) {
		return false, nil
	}
	if err := c.Status().Patch(ctx, patched, client.MergeFromWithOptions(p, client.MergeFromWithOptimisticLock{})); err != nil {
		if apierrors.IsConflict(err) {
			// The policy changed since the cache's copy: the change's watch event
			// brings the new copy and another Sync, which patches from it.
			return false, nil
		}
		return false, fmt.Errorf("controller: patch the status of %s: %w", describe(p), err)
	}
	s.mem.wrote(p.GetUID(), p.GetResourceVersion(), content)
	return true, nil
}

// maxMessage is the API server's limit on a condition message.
const maxMessage = 32768

// truncate shortens s to at most max bytes, on a rune boundary, ending in "...".
func truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max - len("...")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}
