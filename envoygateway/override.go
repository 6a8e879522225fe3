package envoygateway

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policy/egv1alpha1"
)

// responseBodyKey is the ConfigMap key Envoy Gateway takes a response body from first.
const responseBodyKey = "response.body"

// responseOverride is the part of a responseOverride rule that refers to another object:
// a response body taken from a ConfigMap.
type responseOverride struct {
	Response *struct {
		Body *struct {
			Type     *string `json:"type"`
			ValueRef *struct {
				Name string `json:"name"`
			} `json:"valueRef"`
		} `json:"body"`
	} `json:"response"`
	Redirect json.RawMessage `json:"redirect"`
}

// responseOverrideErr returns the error Envoy Gateway finds in a responseOverride list (raw,
// as written in the policy) whose bodies it resolves in namespace ns: a body of type
// ValueRef names a ConfigMap that is not among the inputs, or one without data. The body is
// the ConfigMap's response.body, else any key of its data or binaryData.
func responseOverrideErr(set *policy.Set, raw egv1alpha1.Unread, ns string) error {
	if !raw.IsSet() {
		return nil
	}
	var rules []responseOverride
	if err := json.Unmarshal(raw.Raw(), &rules); err != nil {
		return nil // the schema's validation reports it
	}
	for _, r := range rules {
		if r.Redirect != nil || r.Response == nil || r.Response.Body == nil {
			continue
		}
		b := r.Response.Body
		if b.Type == nil || *b.Type != "ValueRef" || b.ValueRef == nil {
			continue
		}
		cm := set.ConfigMap(ns, b.ValueRef.Name)
		switch {
		case cm == nil:
			return fmt.Errorf("ResponseOverride: can't find the referenced configmap %s/%s", ns, b.ValueRef.Name)
		case len(cm.Data) == 0 && len(cm.BinaryData) == 0:
			return fmt.Errorf("ResponseOverride: can't find the key %s in the referenced configmap %s/%s", responseBodyKey, ns, b.ValueRef.Name)
		}
	}
	return nil
}

// responseOverrideSet reports whether a policy sets a responseOverride list with rules.
func responseOverrideSet(p *egv1alpha1.BackendTrafficPolicy) bool {
	list, _ := p.Spec.ResponseOverride.Value().([]any)
	return len(list) > 0
}

// policyErr returns the errors Envoy Gateway finds in a whole policy, in its order: the
// rate limits' (rlErr), those of the other checked fields (other), then the
// responseOverride's, resolved in the namespace of ro, the policy whose responseOverride
// it is, and requestBuffer's; joined by new lines as Envoy Gateway joins them.
func policyErr(set *policy.Set, rlErr error, other otherFields, ro *egv1alpha1.BackendTrafficPolicy) error {
	var roErr error
	if ro != nil {
		roErr = responseOverrideErr(set, ro.Spec.ResponseOverride, ro.Namespace)
	}
	return errors.Join(rlErr, other.beforeOverride(), roErr, other.afterOverride())
}
