package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rlpkit/rlpkit/policy"
)

// Conditions returns the conditions a policy's status should hold: current with each of
// want set as meta.SetStatusCondition sets it (lastTransitionTime changes only with the
// status), observedGeneration being the policy's generation. Conditions of other types are
// kept.
func Conditions(current []metav1.Condition, want []metav1.Condition, generation int64) []metav1.Condition {
	out := make([]metav1.Condition, len(current))
	for i := range current {
		current[i].DeepCopyInto(&out[i])
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

// patchStatus patches the policy's status conditions when they differ from want, and says
// whether it did. The patch is a JSON merge patch of status.conditions carrying the
// resourceVersion it was computed from.
func (s *Syncer) patchStatus(ctx context.Context, c client.Client, p *policy.RateLimitPolicy, want []metav1.Condition) (bool, error) {
	if p == nil {
		return false, nil
	}
	patched := WithConditions(p, want)
	if equality.Semantic.DeepEqual(patched.Status, p.Status) {
		return false, nil
	}
	content, err := json.Marshal(patched.Status)
	if err != nil {
		return false, err
	}
	if s.seen(p.UID, p.ResourceVersion, string(content)) {
		return false, nil
	}
	if err := c.Status().Patch(ctx, patched, client.MergeFromWithOptions(p, client.MergeFromWithOptimisticLock{})); err != nil {
		return false, fmt.Errorf("controller: patch the status of RateLimitPolicy %s/%s: %w", p.Namespace, p.Name, err)
	}
	s.wrote(p.UID, p.ResourceVersion, string(content))
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
