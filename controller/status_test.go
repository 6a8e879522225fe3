package controller_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rlpkit/rlpkit/controller"
	"github.com/rlpkit/rlpkit/policy/kuadrantv1"
)

func TestConditions(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	t1 := metav1.NewTime(t0.Add(time.Hour))
	cond := func(typ string, status metav1.ConditionStatus, reason string, gen int64, at metav1.Time) metav1.Condition {
		return metav1.Condition{Type: typ, Status: status, Reason: reason, Message: reason, ObservedGeneration: gen, LastTransitionTime: at}
	}
	tests := []struct {
		name    string
		current []metav1.Condition
		want    []metav1.Condition
		gen     int64
		out     []metav1.Condition
	}{
		{
			name: "none yet",
			want: []metav1.Condition{cond("Accepted", "True", "Accepted", 0, t1)},
			gen:  1,
			out:  []metav1.Condition{cond("Accepted", "True", "Accepted", 1, t1)},
		},
		{
			name:    "same status keeps the transition time, follows the generation and reason",
			current: []metav1.Condition{cond("Enforced", "True", "Enforced", 1, t0)},
			want:    []metav1.Condition{cond("Enforced", "True", "PartiallyEnforced", 0, t1)},
			gen:     2,
			out:     []metav1.Condition{cond("Enforced", "True", "PartiallyEnforced", 2, t0)},
		},
		{
			name:    "a new status moves the transition time",
			current: []metav1.Condition{cond("Accepted", "True", "Accepted", 1, t0)},
			want:    []metav1.Condition{cond("Accepted", "False", "TargetNotFound", 0, t1)},
			gen:     1,
			out:     []metav1.Condition{cond("Accepted", "False", "TargetNotFound", 1, t1)},
		},
		{
			name:    "conditions of other types are kept",
			current: []metav1.Condition{cond("Ready", "True", "Other", 1, t0)},
			want:    []metav1.Condition{cond("Accepted", "True", "Accepted", 0, t1)},
			gen:     1,
			out:     []metav1.Condition{cond("Ready", "True", "Other", 1, t0), cond("Accepted", "True", "Accepted", 1, t1)},
		},
		{
			// A policy whose HTTPRoute was deleted: compiling gives Accepted=False and no
			// Enforced, so the old Enforced=True goes.
			name:    "a condition compiling no longer computes is removed",
			current: []metav1.Condition{cond("Accepted", "True", "Accepted", 1, t0), cond("Enforced", "True", "Enforced", 1, t0), cond("Ready", "True", "Other", 1, t0)},
			want:    []metav1.Condition{cond("Accepted", "False", "TargetNotFound", 0, t1)},
			gen:     1,
			out:     []metav1.Condition{cond("Accepted", "False", "TargetNotFound", 1, t1), cond("Ready", "True", "Other", 1, t0)},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := append([]metav1.Condition(nil), tc.current...)
			got := controller.Conditions(tc.current, tc.want, tc.gen)
			if diff := cmp.Diff(tc.out, got); diff != "" {
				t.Errorf("Conditions(%v, %v, %d) (-want +got):\n%s", tc.current, tc.want, tc.gen, diff)
			}
			if diff := cmp.Diff(before, tc.current); diff != "" {
				t.Errorf("Conditions changed its input (-before +after):\n%s", diff)
			}
		})
	}
}

func TestWithConditionsV1(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	t1 := metav1.NewTime(t0.Add(time.Hour))
	cond := func(typ string, status metav1.ConditionStatus, reason string, gen int64, at metav1.Time) metav1.Condition {
		return metav1.Condition{Type: typ, Status: status, Reason: reason, Message: reason, ObservedGeneration: gen, LastTransitionTime: at}
	}
	tests := []struct {
		name    string
		current []metav1.Condition
		want    []metav1.Condition
		out     kuadrantv1.RateLimitPolicyStatus
	}{
		{
			name:    "accepted: observedGeneration in the status and the conditions",
			current: []metav1.Condition{cond("Accepted", "True", "Accepted", 1, t0), cond("Enforced", "True", "Enforced", 1, t0)},
			want:    []metav1.Condition{cond("Accepted", "True", "Accepted", 0, t1), cond("Enforced", "False", "Overridden", 0, t1)},
			out:     kuadrantv1.RateLimitPolicyStatus{ObservedGeneration: 2, Conditions: []metav1.Condition{cond("Accepted", "True", "Accepted", 2, t0), cond("Enforced", "False", "Overridden", 2, t1)}},
		},
		{
			name:    "not accepted: no Enforced condition is left",
			current: []metav1.Condition{cond("Accepted", "True", "Accepted", 1, t0), cond("Enforced", "True", "Enforced", 1, t0)},
			want:    []metav1.Condition{cond("Accepted", "False", "TargetNotFound", 0, t1)},
			out:     kuadrantv1.RateLimitPolicyStatus{ObservedGeneration: 2, Conditions: []metav1.Condition{cond("Accepted", "False", "TargetNotFound", 2, t1)}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &kuadrantv1.RateLimitPolicy{ObjectMeta: metav1.ObjectMeta{Name: "p", Generation: 2}, Status: kuadrantv1.RateLimitPolicyStatus{ObservedGeneration: 1, Conditions: tc.current}}
			before := p.DeepCopy()
			got := controller.WithConditionsV1(p, tc.want)
			if diff := cmp.Diff(tc.out, got.Status); diff != "" {
				t.Errorf("WithConditionsV1(%v, %v).Status (-want +got):\n%s", tc.current, tc.want, diff)
			}
			if diff := cmp.Diff(before, p); diff != "" {
				t.Errorf("WithConditionsV1 changed its input (-before +after):\n%s", diff)
			}
		})
	}
}
