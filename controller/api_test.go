package controller_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/rlpkit/rlpkit/controller"
)

// mapperOf returns a REST mapper that knows the policy kinds of the given APIs.
func mapperOf(apis ...controller.API) meta.RESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	for _, a := range apis {
		m.Add(a.GroupVersionKind(), meta.RESTScopeNamespace)
	}
	return m
}

// failingMapper is a REST mapper whose discovery fails.
type failingMapper struct{ meta.RESTMapper }

func (failingMapper) RESTMapping(schema.GroupKind, ...string) (*meta.RESTMapping, error) {
	return nil, errors.New("connection refused")
}

func TestDetectAPIs(t *testing.T) {
	tests := []struct {
		name           string
		mapper         meta.RESTMapper
		found, missing []controller.API
		err            string
	}{
		{"all", mapperOf(controller.APIV1alpha1, controller.APIV1, controller.APITokenV1alpha1), []controller.API{controller.APIV1alpha1, controller.APIV1, controller.APITokenV1alpha1}, nil, ""},
		{"both RateLimitPolicies", mapperOf(controller.APIV1alpha1, controller.APIV1), []controller.API{controller.APIV1alpha1, controller.APIV1}, []controller.API{controller.APITokenV1alpha1}, ""},
		{"only v1alpha1", mapperOf(controller.APIV1alpha1), []controller.API{controller.APIV1alpha1}, []controller.API{controller.APIV1, controller.APITokenV1alpha1}, ""},
		{"only v1", mapperOf(controller.APIV1), []controller.API{controller.APIV1}, []controller.API{controller.APIV1alpha1, controller.APITokenV1alpha1}, ""},
		{"only TokenRateLimitPolicy", mapperOf(controller.APITokenV1alpha1), []controller.API{controller.APITokenV1alpha1}, []controller.API{controller.APIV1alpha1, controller.APIV1}, ""},
		{"none", mapperOf(), nil, []controller.API{controller.APIV1alpha1, controller.APIV1, controller.APITokenV1alpha1}, ""},
		{"discovery fails", failingMapper{mapperOf()}, nil, nil, "controller: is RateLimitPolicy apim.kuadrant.io/v1alpha1 served? connection refused"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			found, missing, err := controller.DetectAPIs(tc.mapper)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("DetectAPIs() error = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.found, found); diff != "" {
				t.Errorf("DetectAPIs() found (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.missing, missing); diff != "" {
				t.Errorf("DetectAPIs() missing (-want +got):\n%s", diff)
			}
		})
	}
}
