package filter

import (
	"slices"
	"testing"
)

// TestLocalResponseRefused checks that a request whose local response the host refuses is
// never left paused: with failureModeDeny it is closed, otherwise it continues, whether the
// refused reply was a 429 (OVER_LIMIT), a 500 for a failed call, or a 500 for a call that
// could not be made.
func TestLocalResponseRefused(t *testing.T) {
	cases := []struct {
		name  string
		reply []byte // nil: the call fails (OnGrpcClose)
		call  Status // what GrpcCall answers
	}{
		{name: "over limit", reply: []byte{0x08, 0x02}},
		{name: "call failed", reply: nil},
		{name: "call not made", call: StatusBadArgument},
	}
	for _, tc := range cases {
		for _, deny := range []bool{false, true} {
			name := tc.name + "/allow"
			if deny {
				name = tc.name + "/deny"
			}
			t.Run(name, func(t *testing.T) {
				h, f := refusingHost(t, deny, tc.call)
				h.effective = 10
				act := f.OnRequestHeaders(10)
				if tc.call == StatusOK {
					if act != Pause {
						t.Fatalf("OnRequestHeaders = %d, want Pause while the call is in flight", act)
					}
					h.effective = 1 // replies arrive on the root context
					if tc.reply != nil {
						h.reply = tc.reply
						f.OnGrpcReceive(1, uint32(len(tc.reply)))
					} else {
						f.OnGrpcClose(1, 14)
					}
				}
				continued := slices.Contains(h.continued, 10) || (tc.call != StatusOK && act == Continue)
				closed := slices.Contains(h.closed, 10)
				switch {
				case deny && (!closed || continued):
					t.Errorf("deny: closed %v, continued %v (action %d); want closed, not continued", h.closed, h.continued, act)
				case !deny && (closed || !continued):
					t.Errorf("allow: closed %v, continued %v (action %d); want continued, not closed", h.closed, h.continued, act)
				}
				attempted := deny || tc.reply != nil // a failed call under allow sends nothing
				if attempted && !slices.ContainsFunc(h.logs, func(l string) bool {
					return l == "rlpkit-filter: proxy_send_local_response "+replyCode(tc.reply)+": InternalFailure"
				}) {
					t.Errorf("logs %q do not report the refused local response", h.logs)
				}
			})
		}
	}
}

// replyCode is the local response the filter sends for a reply (nil: a failed call).
func replyCode(reply []byte) string {
	if reply != nil {
		return "429"
	}
	return "500"
}

// refusingHost returns a configured filter on a host that refuses every local response and
// answers GrpcCall with call.
func refusingHost(t *testing.T, deny bool, call Status) (*refusing, *Filter) {
	t.Helper()
	d := "false"
	if deny {
		d = "true"
	}
	cfg := []byte(`{"failureModeDeny":` + d + `,"rateLimitPolicies":[{"rateLimitDomain":"d","upstreamCluster":"rls","hostnames":["*"],
		"gatewayActions":[{"configurations":[{"actions":[{"generic_key":{"descriptor_value":"v"}}]}]}]}]}`)
	h := &refusing{fakeHost: fakeHost{config: map[uint32][]byte{1: cfg}, configure: 1, replies: map[uint32]uint32{},
		headers: []Header{{":authority", "a.com"}, {":path", "/"}, {":method", "GET"}}, localErr: StatusInternalFailure}, call: call}
	f := New(h)
	f.OnContextCreate(1, 0)
	if !f.OnConfigure(1, uint32(len(cfg))) {
		t.Fatalf("OnConfigure failed: %v", h.logs)
	}
	f.OnContextCreate(10, 1)
	return h, f
}

// refusing is a fakeHost whose GrpcCall may fail.
type refusing struct {
	fakeHost
	call Status
}

func (h *refusing) GrpcCall(upstream []byte, service, method string, msg []byte, timeout uint32) (uint32, Status) {
	if h.call != StatusOK {
		return 0, h.call
	}
	return h.fakeHost.GrpcCall(upstream, service, method, msg, timeout)
}
