package controller

import (
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/rlpkit/rlpkit/kuadrant"
	"github.com/rlpkit/rlpkit/merge"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policy/kuadrantv1"
	"github.com/rlpkit/rlpkit/policy/kuadrantv1alpha1"
)

// policyKind is the registration of a policy kind the controller reads, has compiled by a
// policy API of package policyapi, and writes the status of. Read, Sync, the statuses and
// SetupWithManager go through it alone: a new kind is one more entry of policyKinds (and
// its API in package policyapi/apis). AuthPolicies, read but not compiled into statuses
// here (kuadrant-operator owns them), are no entry: authpolicy.go reads and watches them.
type policyKind struct {
	// api is the group/version the kind is read under (--apis).
	api API
	// gvk is the kind.
	gvk schema.GroupVersionKind
	// crd is the name of the kind's CRD.
	crd string
	// compiledBy is the name of the policyapi.API that compiles the kind; statusKind is the
	// Kind of its policyapi.PolicyStatus (empty for that API's first kind).
	compiledBy, statusKind string
	// newObject and newList return an empty object and list of the kind.
	newObject func() client.Object
	newList   func() client.ObjectList
	// add adds the objects listed (of the kind) to a Set made by policy.NewSet.
	add func(set *policy.Set, objs []client.Object)
	// is says whether an object is of the kind.
	is func(o client.Object) bool
	// patched returns a copy of o with its status holding the conditions want, and false
	// when o is not of the kind.
	patched func(o client.Object, want []metav1.Condition) (client.Object, bool)
	// notWritten is the reason of the Enforced=False condition of a policy whose compiled
	// output could not be written.
	notWritten string
}

// policyKinds are the policy kinds the controller knows, in AllAPIs' order.
var policyKinds = []policyKind{
	register(APIV1alpha1, policy.GroupVersion.WithKind(policy.Kind), "ratelimitpolicies.apim.kuadrant.io", merge.API{}.Name(), "",
		func() client.ObjectList { return &policy.RateLimitPolicyList{} }, (*policy.Set).AddPolicies, WithConditions, string(ReasonWriteFailed)),
	register(APIV1, kuadrantv1.GroupVersion.WithKind(kuadrantv1.Kind), "ratelimitpolicies.kuadrant.io", kuadrant.API{}.Name(), "",
		func() client.ObjectList { return &kuadrantv1.RateLimitPolicyList{} }, (*policy.Set).AddPoliciesV1, WithConditionsV1, kuadrant.ReasonUnknown),
	register(APITokenV1alpha1, kuadrantv1alpha1.GroupVersion.WithKind(kuadrantv1alpha1.Kind), "tokenratelimitpolicies.kuadrant.io", kuadrant.API{}.Name(), policy.KindTokenRateLimitPolicy,
		func() client.ObjectList { return &kuadrantv1alpha1.TokenRateLimitPolicyList{} }, (*policy.Set).AddTokenPolicies, WithConditionsToken, kuadrant.ReasonUnknown),
}

// register returns the registration of the policy kind whose objects are *T.
func register[T any, P interface {
	*T
	client.Object
}](api API, gvk schema.GroupVersionKind, crd, compiledBy, statusKind string, newList func() client.ObjectList,
	add func(*policy.Set, []P), patched func(P, []metav1.Condition) P, notWritten string) policyKind {
	return policyKind{
		api: api, gvk: gvk, crd: crd, compiledBy: compiledBy, statusKind: statusKind,
		newObject: func() client.Object { return P(new(T)) },
		newList:   newList,
		add: func(set *policy.Set, objs []client.Object) {
			typed := make([]P, 0, len(objs))
			for _, o := range objs {
				if p, ok := o.(P); ok {
					typed = append(typed, p)
				}
			}
			add(set, typed)
		},
		is: func(o client.Object) bool {
			_, ok := o.(P)
			return ok
		},
		patched: func(o client.Object, want []metav1.Condition) (client.Object, bool) {
			p, ok := o.(P)
			if !ok {
				return nil, false
			}
			return patched(p, want), true
		},
		notWritten: notWritten,
	}
}

// kindOf returns the registration of a policy object's kind, nil for an object of no
// registered kind.
func kindOf(o client.Object) *policyKind {
	for i := range policyKinds {
		if policyKinds[i].is(o) {
			return &policyKinds[i]
		}
	}
	return nil
}

// compiledKind returns the registration of the kind whose statuses the policy API named
// compiledBy gives with Kind statusKind, nil for none.
func compiledKind(compiledBy, statusKind string) *policyKind {
	for i := range policyKinds {
		if policyKinds[i].compiledBy == compiledBy && policyKinds[i].statusKind == statusKind {
			return &policyKinds[i]
		}
	}
	return nil
}

// items returns the objects of a list of the kind, without copying them.
func items(list client.ObjectList) ([]client.Object, error) {
	objs, err := meta.ExtractList(list)
	if err != nil {
		return nil, err
	}
	out := make([]client.Object, 0, len(objs))
	for _, o := range objs {
		if co, ok := o.(client.Object); ok {
			out = append(out, co)
		}
	}
	return out, nil
}

// plural names the kind's objects in messages: "RateLimitPolicies".
func (k *policyKind) plural() string {
	if base, ok := strings.CutSuffix(k.gvk.Kind, "y"); ok {
		return base + "ies"
	}
	return k.gvk.Kind + "s"
}
