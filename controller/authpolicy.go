package controller

import (
	"context"
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	sigsjson "sigs.k8s.io/json"

	"github.com/rlpkit/rlpkit/kuadrant"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policy/kuadrantv1"
)

// AuthPolicyKind is the kind of Kuadrant's AuthPolicy, kuadrant.io/v1. The controller
// reads AuthPolicies, to know on which paths auth.* is set, and writes neither their
// status nor an AuthConfig: kuadrant-operator and Authorino do.
var AuthPolicyKind = kuadrantv1.GroupVersion.WithKind(kuadrantv1.AuthPolicyKind)

// readsAuthPolicies says whether the APIs read are compiled by package kuadrant, the one
// policy API AuthPolicies change.
func readsAuthPolicies(read []API) bool {
	for _, a := range read {
		if a.PolicyAPI() == (kuadrant.API{}).Name() {
			return true
		}
	}
	return false
}

// readAuthPolicies lists, through c, the AuthPolicies into set. They are listed as
// unstructured objects (the Go type keeps the rules schemaless and is no runtime.Object)
// and decoded as rlpkit reads them from files. A cluster that does not serve the kind
// (Kuadrant's operator not installed) has none: its absence is not an error.
func readAuthPolicies(ctx context.Context, c client.Client, set *policy.Set) error {
	var list unstructured.UnstructuredList
	list.SetGroupVersionKind(AuthPolicyKind.GroupVersion().WithKind(AuthPolicyKind.Kind + "List"))
	if found, err := listOptional(ctx, c, &list, "AuthPolicies"); !found {
		return err
	}
	out := make([]*kuadrantv1.AuthPolicy, len(list.Items))
	for i := range list.Items {
		p, err := decodeAuthPolicy(&list.Items[i])
		if err != nil {
			return err
		}
		out[i] = p
	}
	set.AddAuthPolicies(out)
	return nil
}

// decodeAuthPolicy returns the AuthPolicy u holds, its numbers kept as integers where they
// are (as policy.Decode keeps them), fields the Go type lacks ignored.
func decodeAuthPolicy(u *unstructured.Unstructured) (*kuadrantv1.AuthPolicy, error) {
	data, err := json.Marshal(u.Object)
	if err == nil {
		var p kuadrantv1.AuthPolicy
		if err = sigsjson.UnmarshalCaseSensitivePreserveInts(data, &p); err == nil {
			return &p, nil
		}
	}
	return nil, fmt.Errorf("controller: AuthPolicy %s/%s: %w", u.GetNamespace(), u.GetName(), err)
}

// AuthPoliciesServed reports whether the API server serves AuthPolicies (kuadrant.io/v1),
// per mapper. The error is for a mapper that cannot answer, not for a missing CRD.
func AuthPoliciesServed(mapper meta.RESTMapper) (bool, error) {
	return served(mapper, AuthPolicyKind, "AuthPolicies")
}

// watchAuthPolicies adds to b a watch of AuthPolicies (their spec, labels and
// annotations), so that an AuthPolicy's change recompiles the rate limits of its paths,
// when a policy API package kuadrant compiles is read and the API server serves them;
// otherwise, with such an API read, it logs that they are not watched.
func watchAuthPolicies(mgr ctrl.Manager, b *builder.Builder, read []API, h handler.EventHandler, changed predicate.Predicate) (*builder.Builder, error) {
	if !readsAuthPolicies(read) {
		return b, nil
	}
	served, err := AuthPoliciesServed(mgr.GetRESTMapper())
	if err != nil {
		return nil, err
	}
	if !served {
		mgr.GetLogger().Info("AuthPolicy CRD not installed: AuthPolicies are not watched and auth.* is available on no path; install Kuadrant's CRDs and restart the controller to use them")
		return b, nil
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(AuthPolicyKind)
	return b.Watches(u, h, builder.WithPredicates(changed)), nil
}
