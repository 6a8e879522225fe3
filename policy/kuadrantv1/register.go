// +kubebuilder:object:generate=true
// +groupName=kuadrant.io
// +versionName=v1
package kuadrantv1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// RateLimitPolicyList is a list of RateLimitPolicies, as the API server returns it.
//
// +kubebuilder:object:root=true
type RateLimitPolicyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the policies.
	Items []RateLimitPolicy `json:"items"`
}

// AddToScheme registers RateLimitPolicy and RateLimitPolicyList under GroupVersion in a
// runtime.Scheme, so that a Kubernetes client can read and write them.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &RateLimitPolicy{}, &RateLimitPolicyList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
