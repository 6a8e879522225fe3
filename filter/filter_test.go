package filter

import (
	"testing"

	"github.com/rlpkit/rlpkit/filter/rlswire"
)

// fakeHost is a Host in Go for tests of the filter's bookkeeping; the real ABI is tested end
// to end in cmd/rlpkit-filter.
type fakeHost struct {
	config    map[uint32][]byte // per root
	configure uint32            // the root being configured
	headers   []Header
	effective uint32
	calls     []fakeCall
	continued []uint32
	replies   map[uint32]uint32
	reply     []byte
	logs      []string
	localErr  Status   // what SendLocalResponse answers; StatusOK by default
	closed    []uint32 // contexts closed with CloseRequest
}

type fakeCall struct {
	upstream []byte
	stream   uint32
	message  []byte
}

func (h *fakeHost) Log(_ LogLevel, msg string) { h.logs = append(h.logs, msg) }
func (h *fakeHost) PluginConfiguration(uint32) ([]byte, Status) {
	return h.config[h.configure], StatusOK
}
func (h *fakeHost) RequestHeaders() ([]Header, Status)   { return h.headers, StatusOK }
func (h *fakeHost) ResponseHeaders() ([]Header, Status)  { return nil, StatusOK }
func (h *fakeHost) ResponseBody(uint32) ([]byte, Status) { return nil, StatusNotFound }
func (h *fakeHost) Property(string) ([]byte, Status)     { return nil, StatusNotFound }
func (h *fakeHost) GrpcCancel(uint32) Status             { return StatusOK }
func (h *fakeHost) SetEffectiveContext(id uint32) Status { h.effective = id; return StatusOK }
func (h *fakeHost) ContinueRequest() Status {
	h.continued = append(h.continued, h.effective)
	return StatusOK
}
func (h *fakeHost) GrpcReceiveBuffer(uint32) ([]byte, Status) { return h.reply, StatusOK }
func (h *fakeHost) AddResponseHeader(string, string) Status   { return StatusOK }
func (h *fakeHost) SendLocalResponse(code uint32, _ string, _ []byte, _ []Header) Status {
	if h.localErr != StatusOK {
		return h.localErr
	}
	h.replies[h.effective] = code
	return StatusOK
}
func (h *fakeHost) CloseRequest() Status {
	h.closed = append(h.closed, h.effective)
	return StatusOK
}
func (h *fakeHost) GrpcCall(upstream []byte, _, _ string, msg []byte, _ uint32) (uint32, Status) {
	h.calls = append(h.calls, fakeCall{upstream: upstream, stream: h.effective, message: append([]byte(nil), msg...)})
	return uint32(len(h.calls)), StatusOK
}

// TestTwoRootContexts checks that one VM serving two plugin configurations (two root
// contexts) sends each request to its own root's cluster and answers it on its own context.
func TestTwoRootContexts(t *testing.T) {
	cfg := func(cluster string) []byte {
		return []byte(`{"rateLimitPolicies":[{"rateLimitDomain":"d","upstreamCluster":"` + cluster + `","hostnames":["*"],
			"gatewayActions":[{"configurations":[{"actions":[{"generic_key":{"descriptor_value":"v"}}]}]}]}]}`)
	}
	h := &fakeHost{config: map[uint32][]byte{1: cfg("one"), 2: cfg("two")}, replies: map[uint32]uint32{},
		headers: []Header{{":authority", "a.com"}, {":path", "/"}, {":method", "GET"}}}
	f := New(h)
	for _, root := range []uint32{1, 2} {
		f.OnContextCreate(root, 0)
		h.configure = root
		if !f.OnConfigure(root, uint32(len(h.config[root]))) {
			t.Fatalf("OnConfigure(%d) failed: %v", root, h.logs)
		}
	}
	f.OnContextCreate(10, 1)
	f.OnContextCreate(20, 2)
	for _, id := range []uint32{10, 20} {
		h.effective = id
		if got := f.OnRequestHeaders(id); got != Pause {
			t.Fatalf("OnRequestHeaders(%d) = %d, want Pause", id, got)
		}
	}
	if len(h.calls) != 2 || string(h.calls[0].upstream) != string(rlswire.AppendGrpcService(nil, "one")) ||
		string(h.calls[1].upstream) != string(rlswire.AppendGrpcService(nil, "two")) {
		t.Fatalf("calls %+v, want one to cluster one and one to cluster two", h.calls)
	}
	// Replies arrive on a root context, the second call's first.
	h.effective, h.reply = 2, []byte{0x08, 0x02} // OVER_LIMIT
	f.OnGrpcReceive(2, uint32(len(h.reply)))
	h.effective, h.reply = 1, []byte{0x08, 0x01} // OK
	f.OnGrpcReceive(1, uint32(len(h.reply)))
	if len(h.continued) != 1 || h.continued[0] != 10 || len(h.replies) != 1 || h.replies[20] != 429 {
		t.Errorf("continued %v, replies %v; want stream 10 continued and stream 20 answered 429", h.continued, h.replies)
	}
	if f.InFlight() != 0 {
		t.Errorf("InFlight() = %d after both replies, want 0", f.InFlight())
	}
}
