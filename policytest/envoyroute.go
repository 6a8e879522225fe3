package policytest

import (
	"fmt"
	"strings"

	"github.com/rlpkit/rlpkit/envoyroute"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// RouteFrontend returns the Frontend of an Envoy route configuration and its rate-limit
// filters (package envoyroute): the rate-limit request is the first filter's call; the
// calls of other filters, and the descriptors sent when the stream is done, are named in
// the trace and not sent.
func RouteFrontend(cfg *envoyroute.Config) Frontend { return &routeFrontend{cfg: cfg} }

type routeFrontend struct{ cfg *envoyroute.Config }

func (f *routeFrontend) Generate(in *Input, out *rlsmsg.Request, trace *strings.Builder) bool {
	req := envoyroute.Request{Method: in.Method, Scheme: in.Scheme, Authority: in.Host, Path: in.Path,
		Headers: in.Headers, RemoteAddress: in.RemoteAddress, HitsAddend: in.HitsAddend}
	if in.Metadata != nil {
		req.Metadata = in.Metadata
	}
	ev := f.cfg.Evaluate(&req)
	if trace != nil {
		for _, l := range ev.Trace {
			trace.WriteString(l + "\n")
		}
		for _, c := range ev.Calls {
			for i, src := range c.Sources {
				fmt.Fprintf(trace, "filter %s, domain %s: descriptor from %s: %s\n", c.Filter, c.Request.Domain, src, c.Request.Descriptors[i].Describe())
			}
		}
		for _, c := range ev.Calls[min(1, len(ev.Calls)):] {
			fmt.Fprintf(trace, "filter %s (domain %s) is not evaluated: only the first rate-limit filter's call is\n", c.Filter, c.Request.Domain)
		}
		for _, c := range ev.Done {
			fmt.Fprintf(trace, "filter %s: %d descriptors when the stream is done are not sent\n", c.Filter, len(c.Request.Descriptors))
		}
	}
	if len(ev.Calls) == 0 {
		*out = rlsmsg.Request{}
		return false
	}
	*out = ev.Calls[0].Request
	return true
}
