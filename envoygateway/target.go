package envoygateway

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rlpkit/rlpkit/limit/envoyratelimit"
	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/policyapi"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

var _ policyapi.RateLimitTarget = gatewayPlane{}

// RateLimitTarget returns what rlpkit test and simulate run requests through: the Gateway's
// routes as a LocalFrontend (the calls of its rate-limit filters, each descriptor naming
// its rule, after the route's local rate limit), the rate-limit service's configuration
// loaded as the service loads its files, and every rule of the Gateway's routes as a limit:
// Namespace the rule's domain ("local" for local rules), Name the rule's name ("<policy>
// local default" for a route's default local bucket), MaxValue and Seconds its limit.
func (g gatewayPlane) RateLimitTarget() (policyapi.Frontend, *envoyratelimit.Config, []limitador.Limit, error) {
	var files []envoyratelimit.File
	for i := range g.configs {
		data, err := ConfigFile(&g.configs[i])
		if err != nil {
			return nil, nil, nil, err
		}
		files = append(files, envoyratelimit.File{Key: "config." + strconv.Itoa(i) + ".yaml", Data: data})
	}
	cfg, err := envoyratelimit.Load(files, envoyratelimit.LoadOptions{})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("the compiled rate-limit configuration does not load: %w", err)
	}
	return frontend{gw: g.gw}, cfg, ruleLimits(g.gw), nil
}

// ruleLimits lists the rules of a Gateway's routes, each once, in route order.
func ruleLimits(gw *Gateway) []limitador.Limit {
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
				add(policyapi.LocalDomain, localDefault(rt.Policy), loc.Requests, loc.Unit.Seconds())
				for _, r := range loc.Rules {
					add(policyapi.LocalDomain, r.Name, r.Requests, r.Unit.Seconds())
				}
			}
		}
	}
	return out
}

// localDefault names the default local bucket of a route of policy.
func localDefault(policy string) string { return policy + " local default" }

// frontend is what Envoy does with a request on a Gateway Envoy Gateway configures: the
// route's local rate limit, then the calls of its rate-limit filters. The listener is the
// request's port (ListenerPort).
type frontend struct{ gw *Gateway }

var _ policyapi.LocalFrontend = frontend{}

// evaluate evaluates in on the Gateway; with trace not nil, it writes there the route, every
// rule and the stream-done calls.
func (f frontend) evaluate(in *policyapi.Request, trace *strings.Builder) *Evaluation {
	req := in.Descriptor()
	ev := f.gw.EvaluateResponse(&req, ListenerPort(in), responseOf(in))
	if trace != nil {
		for _, l := range ev.Trace {
			trace.WriteString(l + "\n")
		}
		for _, c := range ev.Done {
			for i := range c.Request.Descriptors {
				fmt.Fprintf(trace, "when the response is done: %s\n", c.Request.Descriptors[i].Describe())
			}
		}
	}
	return ev
}

// calls returns the calls of an evaluation; none for a route that answers itself.
func calls(ev *Evaluation) (calls, done []policyapi.Call) {
	for _, c := range ev.Calls {
		calls = append(calls, policyapi.Call{Filter: c.Filter, Request: c.Request, Rules: c.Rules})
	}
	for _, c := range ev.Done {
		done = append(done, policyapi.Call{Filter: c.Filter, Request: c.Request, Rules: c.Rules, FromResponse: c.FromResponse})
	}
	return calls, done
}

// Calls returns the calls of the Gateway's rate-limit filters; the route's local rate
// limit, which is not a call, is left out (NewLocal decides it).
func (f frontend) Calls(in *policyapi.Request, trace *strings.Builder) (c, done []policyapi.Call) {
	ev := f.evaluate(in, trace)
	if trace != nil && ev.Local != nil {
		trace.WriteString("the route's local rate limit is not a call: it is left out here\n")
	}
	return calls(ev)
}

// Generate writes the first rate-limit filter's call.
func (f frontend) Generate(in *policyapi.Request, out *rlsmsg.Request, trace *strings.Builder) bool {
	ev := f.evaluate(in, trace)
	if len(ev.Calls) == 0 {
		*out = rlsmsg.Request{}
		return false
	}
	*out = ev.Calls[0].Request
	return true
}

// NewLocal returns the Gateway's local rate limits, every bucket full.
func (f frontend) NewLocal() policyapi.Local {
	return localRun{f: f, limiter: NewLocalLimiter()}
}

// localRun is one run of a Gateway's local rate limits.
type localRun struct {
	f       frontend
	limiter *LocalLimiter
}

// Calls evaluates in once: its calls and its route's local rate limit.
func (r localRun) Calls(in *policyapi.Request, trace *strings.Builder) (c, done []policyapi.Call, local *policyapi.LocalLimit) {
	ev := r.f.evaluate(in, trace)
	c, done = calls(ev)
	if lr := ev.Local; lr != nil {
		names := []string{localDefault(ev.Route.Policy)}
		if len(lr.Matched) > 0 {
			names = names[:0]
			for _, m := range lr.Matched {
				names = append(names, m.Rule)
			}
		}
		local = &policyapi.LocalLimit{Buckets: names, Take: func(now time.Time) rlsmsg.Status {
			return localStatus(ev, r.limiter.Allow(now, lr))
		}}
	}
	return c, done, local
}

// localStatus is a local rate limit's answer as a status: the bucket that decided, its
// limit, the tokens left and the time until it has one more.
func localStatus(ev *Evaluation, ld LocalDecision) rlsmsg.Status {
	requests, unit, name := ev.Local.Requests, ev.Local.Unit, localDefault(ev.Route.Policy)
	if i := slices.IndexFunc(ev.Local.Matched, func(m LocalMatch) bool { return m.Rule == ld.By }); i >= 0 {
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
