package controller

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rlpkit/rlpkit/kuadrant"
	"github.com/rlpkit/rlpkit/merge"
	"github.com/rlpkit/rlpkit/policy"
)

// ReasonWriteFailed is the reason of the Enforced=False condition of an
// apim.kuadrant.io/v1alpha1 policy whose compiled output could not be written: the message
// names the object and the API server's answer. A kuadrant.io/v1 policy gets the reason
// kuadrant-operator gives while what enforces a policy is not ready, Unknown.
const ReasonWriteFailed policy.ConditionReason = "WriteFailed"

// WriteFailure is a write for a Gateway that failed: the APIs whose policies it leaves
// unenforced there, and the error, which names the object.
type WriteFailure struct {
	// APIs are the RateLimitPolicy APIs the object enforces policies of.
	APIs []API
	// Err names the object and says what the API server answered.
	Err error
}

// Unenforced returns statuses where each policy that compiling found Enforced, on a Gateway
// with a failure (by the Gateway's "namespace/name") of the policy's API, is Enforced=False
// instead, saying which writes failed. A policy enforced on several Gateways is not enforced
// when any of them failed. res and v1 are the results statuses came from.
func (in *Input) Unenforced(statuses []PolicyStatus, res *merge.Result, v1 *kuadrant.Result, failed map[string][]WriteFailure) []PolicyStatus {
	if len(failed) == 0 {
		return statuses
	}
	gateways := policyGateways(res, v1)
	out := make([]PolicyStatus, len(statuses))
	for i, st := range statuses {
		out[i] = st
		enforced := meta.FindStatusCondition(st.Conditions, string(policy.ConditionEnforced))
		if enforced == nil || enforced.Status != metav1.ConditionTrue {
			continue
		}
		api := apiOf(st.Policy)
		var why []string
		for _, gw := range gateways[api+" "+key(st.Policy)] {
			for _, f := range failed[gw] {
				if slices.Contains(f.APIs, API(api)) {
					why = append(why, f.Err.Error())
				}
			}
		}
		if len(why) == 0 {
			continue
		}
		reason := string(ReasonWriteFailed)
		if API(api) == APIV1 {
			reason = kuadrant.ReasonUnknown
		}
		conds := slices.Clone(st.Conditions)
		meta.SetStatusCondition(&conds, metav1.Condition{
			Type:               enforced.Type,
			Status:             metav1.ConditionFalse,
			Reason:             reason,
			Message:            "RateLimitPolicy is not enforced: the output that enforces it was not written: " + strings.Join(why, "; "),
			ObservedGeneration: enforced.ObservedGeneration,
			LastTransitionTime: enforced.LastTransitionTime,
		})
		out[i].Conditions = conds
	}
	return out
}

// policyGateways returns the Gateways ("namespace/name") each policy compiled into, by
// "API namespace/name" of the policy: those of the routes its sections apply to
// (apim.kuadrant.io/v1alpha1), those of the paths it is on (kuadrant.io/v1).
func policyGateways(res *merge.Result, v1 *kuadrant.Result) map[string][]string {
	out := map[string][]string{}
	add := func(k, gw string) {
		if list := out[k]; len(list) == 0 || list[len(list)-1] != gw {
			if !slices.Contains(list, gw) {
				out[k] = append(list, gw)
			}
		}
	}
	if res != nil {
		for _, gw := range res.Gateways {
			for _, r := range gw.Routes {
				for _, sec := range r.Sections {
					if sec.Policy != nil {
						add(string(APIV1alpha1)+" "+key(sec.Policy), gw.Gateway)
					}
				}
			}
		}
	}
	if v1 != nil {
		for _, e := range v1.Effective {
			gw := key(e.Path.Gateway)
			for _, p := range e.Policies {
				add(string(APIV1)+" "+key(p), gw)
			}
		}
	}
	return out
}

// apiOf returns the API of a policy object, as a string.
func apiOf(o any) string {
	if _, ok := o.(*policy.RateLimitPolicy); ok {
		return string(APIV1alpha1)
	}
	return string(APIV1)
}
