package controller

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policyapi"
)

// ReasonWriteFailed is the reason of the Enforced=False condition of an
// apim.kuadrant.io/v1alpha1 policy whose compiled output could not be written: the message
// names the object and the API server's answer. A Kuadrant policy (kuadrant.io/v1
// RateLimitPolicy, kuadrant.io/v1alpha1 TokenRateLimitPolicy) gets the reason
// kuadrant-operator gives while what enforces a policy is not ready, Unknown.
const ReasonWriteFailed policy.ConditionReason = "WriteFailed"

// WriteFailure is a write for a Gateway that failed: the policy APIs whose policies it
// leaves unenforced there, and the error, which names the object.
type WriteFailure struct {
	// APIs are the names of the policy APIs (policyapi.API.Name) whose parts of the
	// Gateway's output the object holds.
	APIs []string
	// Err names the object and says what the API server answered.
	Err error
}

// Unenforced returns statuses where each policy that compiling found Enforced, on a Gateway
// with a failure (by the Gateway's "namespace/name") of the policy's API, is Enforced=False
// instead, saying which writes failed. A policy enforced on several Gateways is not enforced
// when any of them failed. outs are the outputs whose parts name the policies they
// enforce (policyapi.Bundle.Policies).
func (in *Input) Unenforced(statuses []PolicyStatus, outs []GatewayOutput, failed map[string][]WriteFailure) []PolicyStatus {
	if len(failed) == 0 {
		return statuses
	}
	gateways := policyGateways(outs)
	out := make([]PolicyStatus, len(statuses))
	for i, st := range statuses {
		out[i] = st
		enforced := meta.FindStatusCondition(st.Conditions, string(policy.ConditionEnforced))
		if enforced == nil || enforced.Status != metav1.ConditionTrue {
			continue
		}
		k := kindOf(st.Policy)
		if k == nil {
			continue
		}
		var why []string
		for _, gw := range gateways[placed{k.compiledBy, policyapi.PolicyRef{Kind: st.Kind, Name: key(st.Policy)}}] {
			for _, f := range failed[gw] {
				if slices.Contains(f.APIs, k.compiledBy) {
					why = append(why, f.Err.Error())
				}
			}
		}
		if len(why) == 0 {
			continue
		}
		conds := slices.Clone(st.Conditions)
		meta.SetStatusCondition(&conds, metav1.Condition{
			Type:               enforced.Type,
			Status:             metav1.ConditionFalse,
			Reason:             k.notWritten,
			Message:            k.gvk.Kind + " is not enforced: the output that enforces it was not written: " + strings.Join(why, "; "),
			ObservedGeneration: enforced.ObservedGeneration,
			LastTransitionTime: enforced.LastTransitionTime,
		})
		out[i].Conditions = conds
	}
	return out
}

// placed is a policy of a policy API (its name).
type placed struct {
	api string
	ref policyapi.PolicyRef
}

// policyGateways returns the Gateways ("namespace/name") each policy compiled into: those
// whose parts of outs name it.
func policyGateways(outs []GatewayOutput) map[placed][]string {
	out := map[placed][]string{}
	for _, o := range outs {
		for _, p := range o.Parts {
			for _, ref := range p.Policies {
				k := placed{p.API, ref}
				if !slices.Contains(out[k], o.Name()) {
					out[k] = append(out[k], o.Name())
				}
			}
		}
	}
	return out
}
