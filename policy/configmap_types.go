package policy

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// KindConfigMap is the kind of a core/v1 ConfigMap.
const KindConfigMap = "ConfigMap"

// ConfigMap is a Kubernetes core/v1 ConfigMap. Policies refer to one by name for data they
// do not hold themselves: a BackendTrafficPolicy's responseOverride takes a response body
// from one, and Envoy Gateway rejects the policy when it is missing or empty. rlpkit keeps
// it whole and reads it only through those references.
type ConfigMap struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Immutable, when true, forbids changing Data and BinaryData.
	// +optional
	Immutable *bool `json:"immutable,omitempty"`
	// Data is the UTF-8 values by key.
	// +optional
	Data map[string]string `json:"data,omitempty"`
	// BinaryData is the binary values by key, base64 in YAML and JSON.
	// +optional
	BinaryData map[string][]byte `json:"binaryData,omitempty"`
}

// ConfigMap returns the ConfigMap namespace/name of the set, nil when none was read.
func (s *Set) ConfigMap(namespace, name string) *ConfigMap {
	for _, cm := range s.ConfigMaps {
		if cm.Namespace == namespace && cm.Name == name {
			return cm
		}
	}
	return nil
}
