package policytest

import (
	"fmt"
	"strings"

	"github.com/rlpkit/rlpkit/envoyroute"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// RouteFrontend returns the Frontend of an Envoy route configuration and its rate-limit
// filters (package envoyroute), a CallsFrontend: one call per rate-limit filter with
// descriptors, in filter order, and the calls of apply_on_stream_done rate limits when the
// response is done. Generate alone gives the first filter's call.
func RouteFrontend(cfg *envoyroute.Config) Frontend { return &routeFrontend{cfg: cfg} }

type routeFrontend struct{ cfg *envoyroute.Config }

var _ CallsFrontend = (*routeFrontend)(nil)

func (f *routeFrontend) evaluate(in *Input, trace *strings.Builder) *envoyroute.Evaluation {
	req := in.EnvoyRoute()
	if trace == nil {
		return f.cfg.Decide(&req)
	}
	ev := f.cfg.Evaluate(&req)
	{
		for _, l := range ev.Trace {
			trace.WriteString(l + "\n")
		}
		for _, c := range ev.Calls {
			for i, src := range c.Sources {
				fmt.Fprintf(trace, "filter %s, domain %s: descriptor from %s: %s\n", c.Filter, c.Request.Domain, src, c.Request.Descriptors[i].Describe())
			}
		}
		for _, c := range ev.Done {
			for i, src := range c.Sources {
				fmt.Fprintf(trace, "filter %s, domain %s: when the response is done, descriptor from %s: %s\n", c.Filter, c.Request.Domain, src, c.Request.Descriptors[i].Describe())
			}
		}
	}
	return ev
}

func (f *routeFrontend) Calls(in *Input, trace *strings.Builder) (calls, done []Call) {
	ev := f.evaluate(in, trace)
	for _, c := range ev.Calls {
		calls = append(calls, Call{Filter: c.Filter, Request: c.Request})
	}
	for _, c := range ev.Done {
		done = append(done, Call{Filter: c.Filter, Request: c.Request, FromResponse: c.FromResponse})
	}
	return calls, done
}

func (f *routeFrontend) Generate(in *Input, out *rlsmsg.Request, trace *strings.Builder) bool {
	ev := f.evaluate(in, trace)
	if trace != nil {
		for _, c := range ev.Calls[min(1, len(ev.Calls)):] {
			fmt.Fprintf(trace, "filter %s (domain %s) is not evaluated: only the first rate-limit filter's call is\n", c.Filter, c.Request.Domain)
		}
	}
	if len(ev.Calls) == 0 {
		*out = rlsmsg.Request{}
		return false
	}
	*out = ev.Calls[0].Request
	return true
}
