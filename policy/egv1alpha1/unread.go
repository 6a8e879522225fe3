package egv1alpha1

import (
	"bytes"
	"encoding/json"
)

// Unread holds, as written, a field of BackendTrafficPolicySpec that does not concern rate
// limits (timeout, retry, loadBalancer, ...). rlpkit does not interpret it, but a policy
// that sets it still takes a route from less specific policies, as Envoy Gateway's does.
// The zero value is an unset field.
type Unread struct {
	raw json.RawMessage
}

// IsSet reports whether the field was written with a value other than null.
func (u Unread) IsSet() bool { return len(u.raw) > 0 }

// Raw returns the field's JSON, nil when unset.
func (u Unread) Raw() json.RawMessage { return u.raw }

// Value decodes the field into a map, list or scalar (numbers as float64); nil when unset
// or not valid JSON.
func (u Unread) Value() any {
	var v any
	if !u.IsSet() || json.Unmarshal(u.raw, &v) != nil {
		return nil
	}
	return v
}

// UnmarshalJSON keeps data; null leaves the field unset.
func (u *Unread) UnmarshalJSON(data []byte) error {
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		u.raw = nil
		return nil
	}
	u.raw = append(json.RawMessage(nil), data...)
	return nil
}

// MarshalJSON writes the field as read, null when unset.
func (u Unread) MarshalJSON() ([]byte, error) {
	if !u.IsSet() {
		return []byte("null"), nil
	}
	return u.raw, nil
}

// IsZero reports whether the field is unset, for the omitzero tag.
func (u Unread) IsZero() bool { return !u.IsSet() }
