package controller

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// API is a policy API the controller reads: the group/version of one policy kind,
// "apim.kuadrant.io/v1alpha1" (RateLimitPolicy, compiled by package merge),
// "kuadrant.io/v1" (RateLimitPolicy) or "kuadrant.io/v1alpha1" (TokenRateLimitPolicy),
// the last two compiled together by package kuadrant. Each is registered once, in
// policyKinds.
type API string

const (
	// APIV1alpha1 is rlpkit's RateLimitPolicy apim.kuadrant.io/v1alpha1, whose CRD is
	// config/crd/apim.kuadrant.io_ratelimitpolicies.yaml.
	APIV1alpha1 API = "apim.kuadrant.io/v1alpha1"
	// APIV1 is Kuadrant's RateLimitPolicy kuadrant.io/v1, whose CRD Kuadrant's operator
	// installs, or config/crd/kuadrant.io_ratelimitpolicies.yaml where it does not run.
	APIV1 API = "kuadrant.io/v1"
	// APITokenV1alpha1 is Kuadrant's TokenRateLimitPolicy kuadrant.io/v1alpha1, whose CRD
	// Kuadrant's operator installs, or config/crd/kuadrant.io_tokenratelimitpolicies.yaml
	// where it does not run.
	APITokenV1alpha1 API = "kuadrant.io/v1alpha1"
)

// AllAPIs are the policy APIs the controller knows, in the order it reads them.
var AllAPIs = []API{APIV1alpha1, APIV1, APITokenV1alpha1}

// kind returns the API's registration, nil for an API the controller does not know.
func (a API) kind() *policyKind {
	for i := range policyKinds {
		if policyKinds[i].api == a {
			return &policyKinds[i]
		}
	}
	return nil
}

// GroupVersionKind returns the API's policy kind.
func (a API) GroupVersionKind() schema.GroupVersionKind {
	if k := a.kind(); k != nil {
		return k.gvk
	}
	return schema.GroupVersionKind{}
}

// PolicyAPI returns the name of the policy API, as package policyapi names it
// (policyapi.API.Name), that compiles the API's policies: "apim.kuadrant.io/v1alpha1
// RateLimitPolicy", or one name for kuadrant.io/v1 and kuadrant.io/v1alpha1.
func (a API) PolicyAPI() string {
	if k := a.kind(); k != nil {
		return k.compiledBy
	}
	return ""
}

// apisList is AllAPIs for messages: "a, b or c".
func apisList() string {
	s := make([]string, len(AllAPIs))
	for i, a := range AllAPIs {
		s[i] = string(a)
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// apis returns the APIs to read: the given ones, or all when none is given.
func apis(given []API) ([]API, error) {
	if len(given) == 0 {
		return AllAPIs, nil
	}
	for _, a := range given {
		if !slices.Contains(AllAPIs, a) {
			return nil, fmt.Errorf("controller: unknown policy API %q: want %s", a, apisList())
		}
	}
	return given, nil
}

// DetectAPIs returns the policy APIs whose CRD the API server serves, per mapper (a
// manager's REST mapper asks the API server's discovery), and those it does not. The
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
			return nil, nil, fmt.Errorf("controller: is %s %s served? %w", gvk.Kind, a, err)
		}
	}
	return found, missing, nil
}

// errNoAPI is SetupWithManager's error when no policy CRD is installed.
var errNoAPI = errors.New("controller: the API server serves none of RateLimitPolicy apim.kuadrant.io/v1alpha1, RateLimitPolicy kuadrant.io/v1 and TokenRateLimitPolicy kuadrant.io/v1alpha1: install a CRD from config/crd (or Kuadrant's operator for kuadrant.io) and restart the controller")
