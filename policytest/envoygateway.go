package policytest

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rlpkit/rlpkit/envoygateway"
	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/envoyratelimit"
	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// localDomain is the Decision.Domain of a local rate limit's answer.
const localDomain = "local"

// egTarget is what Envoy Gateway configures for one Gateway from BackendTrafficPolicies:
// its routes and the rate-limit service's configuration.
type egTarget struct {
	gw  *envoygateway.Gateway
	cfg *envoyratelimit.Config
}

// EnvoyGatewayTarget returns the target of Gateway gateway ("namespace/name") compiled from
// the BackendTrafficPolicies of set, its rate-limit configuration loaded as the rate-limit
// service loads its files. Its Frontend is a CallsFrontend of the rate-limit filters' calls
// (RunCase and Simulator also run the local rate limits, which are not calls). Target.Limits lists every rule, for replays: Namespace is the
// rule's domain ("local" for local rules), Name the rule's name ("<policy> local default" for
// a default bucket), MaxValue and Seconds its limit.
func EnvoyGatewayTarget(set *policy.Set, gateway string) (*Target, error) {
	res, err := envoygateway.Compile(set)
	if err != nil {
		return nil, err
	}
	t, err := egTargetOf(res, gateway)
	if err == nil && t == nil {
		return nil, fmt.Errorf("no Gateway %s among the inputs", gateway)
	}
	if t != nil {
		t.Warnings = envoygateway.Warnings(set, res)
	}
	return t, err
}

// egTargetOf returns the target of Gateway gateway of res; nil when res has no such
// Gateway.
func egTargetOf(res *envoygateway.Result, gateway string) (*Target, error) {
	gw := res.Gateway(gateway)
	if gw == nil {
		return nil, nil
	}
	var files []envoyratelimit.File
	for i := range res.RateLimitConfigs {
		data, err := envoygateway.ConfigFile(&res.RateLimitConfigs[i])
		if err != nil {
			return nil, err
		}
		files = append(files, envoyratelimit.File{Key: "config." + strconv.Itoa(i) + ".yaml", Data: data})
	}
	cfg, err := envoyratelimit.Load(files, envoyratelimit.LoadOptions{})
	if err != nil {
		return nil, fmt.Errorf("the compiled rate-limit configuration does not load: %w", err)
	}
	t := NewTarget(egFrontend{gw: gw}, egLimits(gw))
	t.eg = &egTarget{gw: gw, cfg: cfg}
	return t, nil
}

// egLimits lists the rules of a Gateway's routes, each once, in route order.
func egLimits(gw *envoygateway.Gateway) []limitador.Limit {
	var out []limitador.Limit
	add := func(ns, name string, requests uint32, seconds int64) {
		l := limitador.Limit{Namespace: ns, Name: name, MaxValue: requests, Seconds: uint32(seconds)}
		if !slices.ContainsFunc(out, func(x limitador.Limit) bool { return x.Namespace == ns && x.Name == name }) {
			out = append(out, l)
		}
	}
	for _, l := range gw.Listeners {
		for _, rt := range l.Routes {
			if rt.RateLimit == nil || rt.DirectResponse != 0 {
				continue
			}
			for _, r := range rt.RateLimit.Global {
				domain := l.Name
				if r.Shared {
					domain = r.Policy
				}
				add(domain, r.Name, r.Requests, r.Unit.Seconds())
			}
			if loc := rt.RateLimit.Local; loc != nil {
				add(localDomain, localDefault(rt), loc.Requests, loc.Unit.Seconds())
				for _, r := range loc.Rules {
					add(localDomain, r.Name, r.Requests, r.Unit.Seconds())
				}
			}
		}
	}
	return out
}

// localDefault names a route's default local bucket.
func localDefault(rt *envoygateway.Route) string { return rt.Policy + " local default" }

// port returns the listener port of a request URL: its port, else its scheme's.
func port(raw string) int32 {
	u, err := url.Parse(raw)
	if err != nil {
		return 0
	}
	if p, err := strconv.Atoi(u.Port()); err == nil {
		return int32(p)
	}
	if u.Scheme == "https" {
		return 443
	}
	return 80
}

// egRun is one case's or replay's state: the counters of the rate-limit service and the
// local buckets.
type egRun struct {
	t     *egTarget
	ev    *envoyratelimit.Evaluator
	local *envoygateway.LocalLimiter
	resp  limit.Result
}

func (t *egTarget) newRun() (*egRun, error) {
	ev, err := envoyratelimit.NewEvaluator(envoyratelimit.Options{Store: counter.NewMemoryStore(counter.MemoryOptions{MaxKeys: 1 << 12})})
	if err != nil {
		return nil, err
	}
	return &egRun{t: t, ev: ev.WithConfig(t.cfg), local: envoygateway.NewLocalLimiter()}, nil
}

// flatten returns the request-time descriptors of every call, in call order.
func flatten(ev *envoygateway.Evaluation) []rlsmsg.Descriptor {
	var out []rlsmsg.Descriptor
	for _, c := range ev.Calls {
		out = append(out, c.Request.Descriptors...)
	}
	return out
}

// send sends a request Evaluate described at now: the local rate limit, then each filter's
// call until one answers OVER_LIMIT, then the calls of the filters that ran when the
// response is done. The decision's statuses are those of every request-time descriptor
// (OK without a limit for the calls not made); each names the rule it counts for.
func (r *egRun) send(ctx context.Context, now time.Time, ev *envoygateway.Evaluation) (Decision, error) {
	d := Decision{Code: rlsmsg.CodeOK, Descriptor: -1}
	d.Statuses = make([]rlsmsg.Status, len(flatten(ev)))
	for i := range d.Statuses {
		d.Statuses[i].Code = rlsmsg.CodeOK
	}
	if ev.Route == nil || ev.Route.DirectResponse != 0 {
		return d, nil
	}
	if ev.Local != nil {
		d.Called = true
		ld := r.local.Allow(now, ev.Local)
		if !ld.Allowed || len(ev.Calls) == 0 {
			d.Domain, d.Status = localDomain, localStatus(ev, ld)
			if !ld.Allowed {
				d.Code = rlsmsg.CodeOverLimit
				return d, nil
			}
		}
	}
	ran, offset := -1, 0
	for ci, c := range ev.Calls {
		d.Called, ran = true, ci
		if err := r.ev.Evaluate(ctx, now, &c.Request, &r.resp); err != nil {
			return Decision{}, err
		}
		for i, st := range r.resp.Statuses {
			if st.CurrentLimit != nil {
				l := *st.CurrentLimit
				l.Name = c.Rules[i]
				st.CurrentLimit = &l
			}
			d.Statuses[offset+i] = st
			d.pick(offset+i, c.Request.Domain)
		}
		offset += len(c.Request.Descriptors)
		if r.resp.OverallCode == rlsmsg.CodeOverLimit {
			d.Code = rlsmsg.CodeOverLimit
			break
		}
	}
	return d, r.done(ctx, now, ev, ran)
}

// localStatus is a local rate limit's answer as a status: the bucket that decided, its
// limit, the tokens left and the time until it has one more.
func localStatus(ev *envoygateway.Evaluation, ld envoygateway.LocalDecision) rlsmsg.Status {
	requests, unit, name := ev.Local.Requests, ev.Local.Unit, localDefault(ev.Route)
	if i := slices.IndexFunc(ev.Local.Matched, func(m envoygateway.LocalMatch) bool { return m.Rule == ld.By }); i >= 0 {
		requests, unit, name = ev.Local.Matched[i].Requests, ev.Local.Matched[i].Unit, ld.By
	}
	st := rlsmsg.Status{Code: rlsmsg.CodeOK, LimitRemaining: ld.Remaining}
	if !ld.Allowed {
		st.Code = rlsmsg.CodeOverLimit
	}
	u, _ := rlsmsg.ParseUnit(strings.ToUpper(string(unit)))
	st.CurrentLimit = &rlsmsg.RateLimit{Name: name, RequestsPerUnit: requests, Unit: u}
	if requests > 0 {
		st.DurationUntilReset = time.Duration(unit.Seconds()) * time.Second / time.Duration(requests)
	}
	return st
}

// pick makes status i the deciding one when it is the first over the limit, or else the one
// with the least remaining.
func (d *Decision) pick(i int, domain string) {
	st := &d.Statuses[i]
	if st.CurrentLimit == nil || d.Descriptor >= 0 && d.Status.Code == rlsmsg.CodeOverLimit {
		return
	}
	if d.Descriptor < 0 || st.Code == rlsmsg.CodeOverLimit || st.LimitRemaining < d.Status.LimitRemaining {
		d.Descriptor, d.Status, d.Domain = i, *st, domain
	}
}

// done sends the stream-done calls of the filters among the first ran+1 calls.
func (r *egRun) done(ctx context.Context, now time.Time, ev *envoygateway.Evaluation, ran int) error {
	for _, c := range ev.Done {
		if !slices.ContainsFunc(ev.Calls[:ran+1], func(x envoygateway.Call) bool { return x.Filter == c.Filter }) {
			continue
		}
		var resp limit.Result
		if err := r.ev.Evaluate(ctx, now, &c.Request, &resp); err != nil {
			return err
		}
	}
	return nil
}

// runEnvoyGatewayCase runs one case against a target of BackendTrafficPolicies.
func (t *Test) runEnvoyGatewayCase(target *Target, c *Case) CaseResult {
	res := CaseResult{Name: c.Name}
	var explain strings.Builder
	dreq := c.Request.input().Descriptor()
	req := &dreq
	ev := target.eg.gw.Evaluate(req, port(c.Request.URL))
	res.descriptors = flatten(ev)
	if res.descriptors == nil {
		res.descriptors = []rlsmsg.Descriptor{}
	}
	explainRequest(&explain, target, req.Method, c.Request.URL, ev.Trace, res.descriptors)
	for _, call := range ev.Done {
		for i := range call.Request.Descriptors {
			fmt.Fprintf(&explain, "  when the response is done: %s\n", call.Request.Descriptors[i].Describe())
		}
	}
	res.checkDescriptors(c)
	run, err := target.eg.newRun()
	if err != nil {
		res.Failures = append(res.Failures, err.Error())
		res.Explain = explain.String()
		return res
	}
	send := func(now time.Time, _ *Step) (Decision, error) { return run.send(context.Background(), now, ev) }
	t.runSteps(target, c, &res, &explain, send, res.descriptors)
	return res
}
