// +kubebuilder:object:generate=true
// +groupName=kuadrant.io
// +versionName=v1alpha1
package kuadrantv1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// TokenRateLimitPolicyList is a list of TokenRateLimitPolicies, as the API server returns
// it.
//
// +kubebuilder:object:root=true
type TokenRateLimitPolicyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the policies.
	Items []TokenRateLimitPolicy `json:"items"`
}

// AddToScheme registers TokenRateLimitPolicy and TokenRateLimitPolicyList under
// GroupVersion in a runtime.Scheme, so that a Kubernetes client can read and write them.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &TokenRateLimitPolicy{}, &TokenRateLimitPolicyList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
