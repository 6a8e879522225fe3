package controller

import (
	"errors"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/rlpkit/rlpkit/kuadrant"
	"github.com/rlpkit/rlpkit/merge"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policy/kuadrantv1"
)

// API is a RateLimitPolicy API the controller reads: "apim.kuadrant.io/v1alpha1" (package
// policy, compiled by package merge) or "kuadrant.io/v1" (package kuadrantv1, compiled by
// package kuadrant).
type API string

const (
	// APIV1alpha1 is rlpkit's RateLimitPolicy apim.kuadrant.io/v1alpha1, whose CRD is
	// config/crd/apim.kuadrant.io_ratelimitpolicies.yaml.
	APIV1alpha1 API = "apim.kuadrant.io/v1alpha1"
	// APIV1 is Kuadrant's RateLimitPolicy kuadrant.io/v1, whose CRD Kuadrant's operator
	// installs, or config/crd/kuadrant.io_ratelimitpolicies.yaml where it does not run.
	APIV1 API = "kuadrant.io/v1"
)

// AllAPIs are the RateLimitPolicy APIs the controller knows, in the order it reads them.
var AllAPIs = []API{APIV1alpha1, APIV1}

// GroupVersionKind returns the API's RateLimitPolicy kind.
func (a API) GroupVersionKind() schema.GroupVersionKind {
	if a == APIV1 {
		return kuadrantv1.GroupVersion.WithKind(kuadrantv1.Kind)
	}
	return policy.GroupVersion.WithKind(policy.Kind)
}

// PolicyAPI returns the name of the API as package policyapi names it
// (policyapi.API.Name): "apim.kuadrant.io/v1alpha1 RateLimitPolicy".
func (a API) PolicyAPI() string {
	if a == APIV1 {
		return kuadrant.API{}.Name()
	}
	return merge.API{}.Name()
}

// apis returns the APIs to read: the given ones, or all when none is given.
func apis(given []API) ([]API, error) {
	if len(given) == 0 {
		return AllAPIs, nil
	}
	for _, a := range given {
		if !slices.Contains(AllAPIs, a) {
			return nil, fmt.Errorf("controller: unknown RateLimitPolicy API %q: want %s or %s", a, APIV1alpha1, APIV1)
		}
	}
	return given, nil
}

// DetectAPIs returns the RateLimitPolicy APIs whose CRD the API server serves, per mapper
// (a manager's REST mapper asks the API server's discovery), and those it does not. The
// error is for a mapper that cannot answer, not for a missing CRD.
func DetectAPIs(mapper meta.RESTMapper) (found, missing []API, err error) {
	for _, a := range AllAPIs {
		gvk := a.GroupVersionKind()
		_, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		switch {
		case err == nil:
			found = append(found, a)
		case meta.IsNoMatchError(err):
			missing = append(missing, a)
		default:
			return nil, nil, fmt.Errorf("controller: is RateLimitPolicy %s served? %w", a, err)
		}
	}
	return found, missing, nil
}

// errNoAPI is SetupWithManager's error when neither RateLimitPolicy CRD is installed.
var errNoAPI = errors.New("controller: the API server serves neither RateLimitPolicy apim.kuadrant.io/v1alpha1 nor kuadrant.io/v1: install a CRD from config/crd (or Kuadrant's operator for kuadrant.io/v1) and restart the controller")
