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
	"github.com/rlpkit/rlpkit/policy/kuadrantv1alpha1"
	"github.com/rlpkit/rlpkit/policyapi"
)

// managedTypes are the condition types rlpkit-controller writes on policies of every API.
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
	next.Status.Conditions, next.Status.ObservedGeneration = kuadrantConditions(p.Status.Conditions, want, p.Generation)
	return next
}

// WithConditionsToken returns a copy of the kuadrant.io/v1alpha1 TokenRateLimitPolicy p
// whose status is set as WithConditionsV1 sets a kuadrant.io/v1 RateLimitPolicy's, as
// kuadrant-operator writes both.
func WithConditionsToken(p *kuadrantv1alpha1.TokenRateLimitPolicy, want []metav1.Condition) *kuadrantv1alpha1.TokenRateLimitPolicy {
	next := p.DeepCopy()
	next.Status.Conditions, next.Status.ObservedGeneration = kuadrantConditions(p.Status.Conditions, want, p.Generation)
	return next
}

// kuadrantConditions returns the conditions and observedGeneration of a Kuadrant policy's
// status: Conditions(current, want, generation) without Enforced when not Accepted.
func kuadrantConditions(current, want []metav1.Condition, generation int64) ([]metav1.Condition, int64) {
	out := Conditions(current, want, generation)
	if meta.IsStatusConditionFalse(out, kuadrant.ConditionAccepted) {
		meta.RemoveStatusCondition(&out, kuadrant.ConditionEnforced)
	}
	return out, generation
}

// PolicyStatus is the status Sync wants for one policy of any kind the controller reads:
// the contract's status compiling computed (policyapi.Compiled.Statuses), as it is, with
// the policy it is for.
type PolicyStatus struct {
	// Policy is the policy as read: a *policy.RateLimitPolicy, a
	// *kuadrantv1.RateLimitPolicy or a *kuadrantv1alpha1.TokenRateLimitPolicy. It is not
	// modified.
	Policy client.Object
	// PolicyStatus holds the conditions to write.
	policyapi.PolicyStatus
}

// Patched returns a copy of the policy with its status set to the Conditions
// (WithConditions, WithConditionsV1 or WithConditionsToken, by its kind).
func (s PolicyStatus) Patched() client.Object {
	if k := kindOf(s.Policy); k != nil {
		next, _ := k.patched(s.Policy, s.Conditions)
		return next
	}
	panic(fmt.Sprintf("controller: PolicyStatus.Policy is a %T, not a policy kind the controller reads", s.Policy))
}

// Compiled is one policy API's compiled policies as Sync takes them: the statuses and,
// through policyapi.Bundler, each Gateway's output.
type Compiled struct {
	// API is the name of the policy API that compiled them (policyapi.API.Name).
	API string
	policyapi.Compiled
}

// compiledOf returns the results of packages merge (apim.kuadrant.io/v1alpha1) and
// kuadrant (kuadrant.io/v1 and v1alpha1) as Compiled, leaving out a nil one.
func compiledOf(res *merge.Result, v1 *kuadrant.Result) []Compiled {
	var out []Compiled
	if res != nil {
		out = append(out, Compiled{API: merge.API{}.Name(), Compiled: &merge.Compiled{Result: res}})
	}
	if v1 != nil {
		out = append(out, Compiled{API: kuadrant.API{}.Name(), Compiled: &kuadrant.Compiled{Result: v1}})
	}
	return out
}

// Statuses returns the status of every policy of in that a result holds: those of res
// (apim.kuadrant.io/v1alpha1) and of v1 (kuadrant.io/v1 RateLimitPolicies and
// TokenRateLimitPolicies), in that order; either may be nil (PolicyStatuses).
func (in *Input) Statuses(res *merge.Result, v1 *kuadrant.Result) []PolicyStatus {
	return in.PolicyStatuses(compiledOf(res, v1))
}

// PolicyStatuses returns the status of every policy of in that the compiled APIs give a
// status of, in their order, each API's in its order.
func (in *Input) PolicyStatuses(compiled []Compiled) []PolicyStatus {
	var out []PolicyStatus
	for _, c := range compiled {
		for _, st := range c.Statuses() {
			k := compiledKind(c.API, st.Kind)
			if k == nil {
				continue
			}
			if p, ok := in.Policies[k.api][st.Name]; ok {
				out = append(out, PolicyStatus{Policy: p, PolicyStatus: st})
			}
		}
	}
	return out
}

// describe names a policy in errors: its kind, API and namespace/name.
func describe(o client.Object) string {
	if k := kindOf(o); k != nil {
		return fmt.Sprintf("%s %s %s", k.gvk.Kind, k.api, key(o))
	}
	return fmt.Sprintf("%T %s", o, key(o))
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
