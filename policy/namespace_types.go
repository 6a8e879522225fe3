package policy

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Namespace is the part of a Kubernetes core/v1 Namespace that merging reads: its labels,
// which listeners' allowedRoutes selectors match. Spec and Status are accepted so that
// objects exported from a cluster decode, and are otherwise ignored.
//
// +kubebuilder:object:root=true
type Namespace struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the namespace's spec; only finalizers exist.
	// +optional
	Spec NamespaceSpec `json:"spec,omitempty"`

	// Status is the namespace's status.
	// +optional
	Status NamespaceStatus `json:"status,omitempty"`
}

// NamespaceSpec mirrors core/v1 NamespaceSpec.
//
// +kubebuilder:object:generate=true
type NamespaceSpec struct {
	// Finalizers are opaque values that must be empty before the namespace is removed.
	// +optional
	Finalizers []string `json:"finalizers,omitempty"`
}

// NamespaceStatus mirrors core/v1 NamespaceStatus.
//
// +kubebuilder:object:generate=true
type NamespaceStatus struct {
	// Phase is Active or Terminating.
	// +optional
	Phase string `json:"phase,omitempty"`

	// Conditions are the namespace's status conditions, kept as written.
	// +optional
	Conditions []NamespaceCondition `json:"conditions,omitempty"`
}

// NamespaceCondition mirrors core/v1 NamespaceCondition.
//
// +kubebuilder:object:generate=true
type NamespaceCondition struct {
	// Type is the condition's type.
	Type string `json:"type"`
	// Status is True, False or Unknown.
	Status string `json:"status"`
	// LastTransitionTime is when the status last changed.
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty"`
	// Reason is a machine-readable reason.
	Reason string `json:"reason,omitempty"`
	// Message is for people.
	Message string `json:"message,omitempty"`
}
