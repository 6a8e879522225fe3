package policytest

import (
	"net"
	"strconv"
	"strings"

	"github.com/rlpkit/rlpkit/envoygateway"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// egFrontend is the Frontend of a Gateway Envoy Gateway configures: the calls of its
// rate-limit filters (a CallsFrontend). Local rate limits are not calls: targets of
// BackendTrafficPolicies decide them before the calls, as Envoy does, and a Frontend
// alone leaves them out.
type egFrontend struct{ gw *envoygateway.Gateway }

var _ CallsFrontend = egFrontend{}

// hostPort returns the listener port of an authority: its port, else 0 (Evaluate's
// default: port 80, else the Gateway's first listener's).
func hostPort(host string) int32 {
	_, p, err := net.SplitHostPort(host)
	if err != nil {
		return 0
	}
	n, err := strconv.ParseInt(p, 10, 32)
	if err != nil {
		return 0
	}
	return int32(n)
}

func (f egFrontend) evaluate(in *Input, trace *strings.Builder) *envoygateway.Evaluation {
	req := in.Descriptor()
	ev := f.gw.Evaluate(&req, hostPort(in.Host))
	if trace != nil {
		for _, l := range ev.Trace {
			trace.WriteString(l + "\n")
		}
		if ev.Local != nil {
			trace.WriteString("the route's local rate limit is not a call: it is left out here\n")
		}
	}
	return ev
}

func (f egFrontend) Calls(in *Input, trace *strings.Builder) (calls, done []Call) {
	ev := f.evaluate(in, trace)
	for _, c := range ev.Calls {
		calls = append(calls, Call{Filter: c.Filter, Request: c.Request})
	}
	for _, c := range ev.Done {
		done = append(done, Call{Filter: c.Filter, Request: c.Request})
	}
	return calls, done
}

func (f egFrontend) Generate(in *Input, out *rlsmsg.Request, trace *strings.Builder) bool {
	ev := f.evaluate(in, trace)
	if len(ev.Calls) == 0 {
		*out = rlsmsg.Request{}
		return false
	}
	*out = ev.Calls[0].Request
	return true
}
