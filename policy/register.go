// +groupName=apim.kuadrant.io
// +versionName=v1alpha1
package policy

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// RateLimitPolicyList is a list of RateLimitPolicies, as the API server returns it.
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

// DeepCopyInto copies the list into out.
func (in *RateLimitPolicyList) DeepCopyInto(out *RateLimitPolicyList) {
	*out = *in
	out.TypeMeta = in.TypeMeta
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	if in.Items != nil {
		out.Items = make([]RateLimitPolicy, len(in.Items))
		for i := range in.Items {
			in.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
}

// DeepCopy returns a copy of the list.
func (in *RateLimitPolicyList) DeepCopy() *RateLimitPolicyList {
	if in == nil {
		return nil
	}
	out := new(RateLimitPolicyList)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns a copy of the list as a runtime.Object.
func (in *RateLimitPolicyList) DeepCopyObject() runtime.Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}
