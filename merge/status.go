package merge

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/policy"
)

// statusTracker decides which policy is used for each target and, as routes compile,
// records which pieces of each policy take effect.
type statusTracker struct {
	all      []*policy.RateLimitPolicy
	accepted map[*policy.RateLimitPolicy]acceptance
	winners  map[policy.ObjectKey]*policy.RateLimitPolicy
	usage    map[string]*usage // by "ns/name"
}

type acceptance struct {
	reason  policy.ConditionReason
	message string
}

// usage is what compiling did with one accepted policy.
type usage struct {
	routes    int             // route compilations the policy took part in
	effective map[string]bool // pieces ("gatewayActions[0]" style, with section) in effect somewhere
	replaced  map[string]bool // "what is replaced by whom where" messages
}

// newStatusTracker decides acceptance; rejected are policies without validation problems
// whose compiled configuration failed the checks of package descriptor or limit, with why.
func newStatusTracker(set, valid *policy.Set, rejected map[*policy.RateLimitPolicy]string) *statusTracker {
	st := &statusTracker{
		all:      slices.Clone(set.Policies),
		accepted: map[*policy.RateLimitPolicy]acceptance{},
		winners:  map[policy.ObjectKey]*policy.RateLimitPolicy{},
		usage:    map[string]*usage{},
	}
	targets := map[policy.ObjectKey]bool{}
	for _, gw := range valid.Gateways {
		targets[policy.ObjectKey{Kind: policy.KindGateway, Namespace: gw.Namespace, Name: gw.Name}] = true
	}
	for _, r := range valid.HTTPRoutes {
		targets[policy.ObjectKey{Kind: policy.KindHTTPRoute, Namespace: r.Namespace, Name: r.Name}] = true
	}
	candidates := map[policy.ObjectKey][]*policy.RateLimitPolicy{}
	for _, p := range set.Policies {
		if probs := set.Problems(policy.PolicyKey(p)); len(probs) > 0 {
			msgs := make([]string, len(probs))
			for i, e := range probs {
				msgs[i] = e.Error()
			}
			st.accepted[p] = acceptance{policy.ReasonInvalid, "the policy is invalid: " + strings.Join(msgs, "; ")}
			continue
		}
		if msg, ok := rejected[p]; ok {
			st.accepted[p] = acceptance{policy.ReasonInvalid, msg}
			continue
		}
		t := targetOf(p)
		if !targets[t] {
			msg := fmt.Sprintf("%s is not among the inputs", t)
			if _, exists := set.Source(t); exists {
				msg = fmt.Sprintf("%s is invalid", t)
			}
			st.accepted[p] = acceptance{policy.ReasonTargetNotFound, msg}
			continue
		}
		candidates[t] = append(candidates[t], p)
	}
	for t, ps := range candidates {
		slices.SortFunc(ps, func(a, b *policy.RateLimitPolicy) int { return olderFirst(&a.ObjectMeta, &b.ObjectMeta) })
		st.winners[t] = ps[0]
		st.accepted[ps[0]] = acceptance{policy.ReasonAccepted, "the policy is accepted"}
		st.usage[nsName(&ps[0].ObjectMeta)] = &usage{effective: map[string]bool{}, replaced: map[string]bool{}}
		for _, p := range ps[1:] {
			st.accepted[p] = acceptance{policy.ReasonConflicted, fmt.Sprintf("%s also targets %s and is older; only the oldest policy of a target is used", nsName(&ps[0].ObjectMeta), t)}
		}
	}
	return st
}

func targetOf(p *policy.RateLimitPolicy) policy.ObjectKey {
	return policy.ObjectKey{Kind: string(p.Spec.TargetRef.Kind), Namespace: p.Namespace, Name: string(p.Spec.TargetRef.Name)}
}

// winner returns the policy used for a target, or nil.
func (st *statusTracker) winner(kind, ns, name string) *policy.RateLimitPolicy {
	return st.winners[policy.ObjectKey{Kind: kind, Namespace: ns, Name: name}]
}

// record notes what one route compilation did with each policy it merged.
func (st *statusTracker) record(rc RouteConfig) {
	seen := map[string]bool{}
	for _, s := range rc.Sections {
		name := nsName(&s.Policy.ObjectMeta)
		if !seen[name] {
			seen[name] = true
			st.usage[name].routes++
		}
	}
	for _, a := range rc.Actions {
		st.usage[a.Origin.Policy].effective[a.Origin.piece("gatewayActions")] = true
	}
	// An action left out because an equivalent one is kept is in effect too.
	var kept []descriptor.GatewayAction
	for _, s := range rc.Sections {
		u := st.usage[nsName(&s.Policy.ObjectMeta)]
		for i, a := range s.Config.GatewayActions {
			piece := origin(s, i).piece("gatewayActions")
			if u.effective[piece] {
				continue
			}
			if kept == nil {
				kept = make([]descriptor.GatewayAction, len(rc.Actions))
				for k, e := range rc.Actions {
					kept[k] = e.Action.Canonical()
				}
			}
			c := a.Canonical()
			if slices.ContainsFunc(kept, func(k descriptor.GatewayAction) bool { return reflect.DeepEqual(k, c) }) {
				u.effective[piece] = true
			}
		}
	}
	for _, l := range rc.Limits {
		st.usage[l.Origin.Policy].effective[l.Origin.piece("rateLimits")] = true
	}
	for _, r := range rc.Replaced {
		st.usage[r.Limit.Policy].replaced[fmt.Sprintf("%s is replaced by %s on HTTPRoute %s (domain %s)",
			r.Limit.piece("rateLimits"), r.By.path("rateLimits"), rc.Route, rc.Domain)] = true
	}
}

// piece returns "spec.default.rateLimits[0]"-style text.
func (o Origin) piece(list string) string {
	return fmt.Sprintf("spec.%s.%s[%d]", o.Section, list, o.Index)
}

// statuses returns every policy's conditions, sorted by namespace/name.
func (st *statusTracker) statuses(now metav1.Time) []PolicyStatus {
	ps := slices.Clone(st.all)
	slices.SortFunc(ps, func(a, b *policy.RateLimitPolicy) int {
		return strings.Compare(nsName(&a.ObjectMeta), nsName(&b.ObjectMeta))
	})
	out := make([]PolicyStatus, 0, len(ps))
	for _, p := range ps {
		acc := st.accepted[p]
		conds := []metav1.Condition{condition(p, policy.ConditionAccepted, acc.reason == policy.ReasonAccepted, acc.reason, acc.message, now)}
		if acc.reason == policy.ReasonAccepted {
			reason, msg := st.enforcement(p)
			enforced := reason == policy.ReasonEnforced || reason == policy.ReasonPartiallyEnforced
			conds = append(conds, condition(p, policy.ConditionEnforced, enforced, reason, msg, now))
		}
		out = append(out, PolicyStatus{Name: nsName(&p.ObjectMeta), Conditions: conds})
	}
	return out
}

// enforcement decides the Enforced reason of an accepted policy.
func (st *statusTracker) enforcement(p *policy.RateLimitPolicy) (policy.ConditionReason, string) {
	u := st.usage[nsName(&p.ObjectMeta)]
	t := targetOf(p)
	switch {
	case pieces(p) == 0:
		return policy.ReasonUnused, "the policy has no gateway actions and no rate limits"
	case u.routes == 0 && t.Kind == policy.KindGateway:
		return policy.ReasonUnused, fmt.Sprintf("no HTTPRoute is attached to %s", t)
	case u.routes == 0:
		return policy.ReasonUnused, fmt.Sprintf("%s is not attached to any Gateway", t)
	case len(u.replaced) == 0:
		return policy.ReasonEnforced, "the policy is in effect"
	}
	msgs := make([]string, 0, len(u.replaced))
	for m := range u.replaced {
		msgs = append(msgs, m)
	}
	slices.Sort(msgs)
	if len(u.effective) == 0 {
		return policy.ReasonOverridden, "every piece of the policy is overridden: " + strings.Join(msgs, "; ")
	}
	return policy.ReasonPartiallyEnforced, "some rate limits are overridden: " + strings.Join(msgs, "; ")
}

func pieces(p *policy.RateLimitPolicy) int {
	n := 0
	for _, c := range []*policy.RateLimitPolicyConfig{p.Spec.Default, p.Spec.Override} {
		if c != nil {
			n += len(c.GatewayActions) + len(c.RateLimits)
		}
	}
	return n
}

func condition(p *policy.RateLimitPolicy, typ policy.ConditionType, ok bool, reason policy.ConditionReason, msg string, now metav1.Time) metav1.Condition {
	status := metav1.ConditionFalse
	if ok {
		status = metav1.ConditionTrue
	}
	return metav1.Condition{
		Type:               string(typ),
		Status:             status,
		ObservedGeneration: p.Generation,
		LastTransitionTime: now,
		Reason:             string(reason),
		Message:            msg,
	}
}
