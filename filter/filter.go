package filter

import (
	"strconv"
	"strings"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/filter/rlswire"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// The RLS method the filter calls.
const (
	Service = "envoy.service.ratelimit.v3.RateLimitService"
	Method  = "ShouldRateLimit"
)

// Property paths, segments separated by NUL as proxy_get_property expects.
const (
	propSourceAddress = "source\x00address"
	propMetadata      = "metadata"
	propRouteMetadata = "xds\x00route_metadata"
)

// Filter is the state of one VM: its root contexts (one per plugin configuration), its
// request contexts and its calls in flight. The host calls it from one thread; it is not safe
// for concurrent use, and need not be.
type Filter struct {
	host    Host
	roots   map[uint32]*root
	streams map[uint32]*stream
	calls   map[uint32]uint32   // token -> request context
	reports map[uint32]struct{} // tokens of report calls, which no request waits for

	// Reused per request; nothing of them outlives a callback.
	res descriptor.Result
	buf []byte
	dyn lazyMetadata
	rt  lazyMetadata
}

// root is a root context: a compiled plugin configuration.
type root struct {
	engine    *descriptor.Engine
	deny      bool
	timeout   uint32   // milliseconds
	upstreams [][]byte // serialized GrpcService per policy

	noUsageLogged bool // a response without usage was logged at warning level
}

// stream is a request context.
type stream struct {
	root    uint32
	token   uint32
	waiting bool            // a call is in flight
	headers []rlsmsg.Header // to add to the response
	report  *pendingReport  // a cost to read from the response body, nil when none
}

// New returns a Filter that talks to host.
func New(host Host) *Filter {
	f := &Filter{host: host, roots: map[uint32]*root{}, streams: map[uint32]*stream{}, calls: map[uint32]uint32{}, reports: map[uint32]struct{}{}}
	f.dyn = lazyMetadata{host: host, path: propMetadata}
	f.rt = lazyMetadata{host: host, path: propRouteMetadata}
	return f
}

// OnContextCreate records a new context: a root context when parent is 0, else a request
// context of root parent.
func (f *Filter) OnContextCreate(id, parent uint32) {
	if parent == 0 {
		f.roots[id] = &root{}
		return
	}
	f.streams[id] = &stream{root: parent}
}

// OnVMStart accepts any VM configuration: the filter has none.
func (f *Filter) OnVMStart(uint32, uint32) bool { return true }

// OnConfigure reads, decodes and compiles root's plugin configuration. It logs every problem
// and returns false when the configuration is invalid; the root keeps no engine then, and
// its requests pass unlimited should the host run them anyway.
func (f *Filter) OnConfigure(id, size uint32) bool {
	r := f.roots[id]
	if r == nil {
		r = &root{}
		f.roots[id] = r
	}
	*r = root{}
	data, st := f.host.PluginConfiguration(size)
	if st != StatusOK && st != StatusNotFound && st != StatusEmpty {
		f.host.Log(LogError, "rlpkit-filter: reading the plugin configuration: "+st.String())
		return false
	}
	if len(data) == 0 {
		f.host.Log(LogError, "rlpkit-filter: the plugin configuration is empty: it must be a PluginConfig as JSON (rlpkit compile -o json prints one per Gateway)")
		return false
	}
	cfg, err := descriptor.Decode(data)
	if err == nil {
		r.engine, err = descriptor.Compile(cfg)
	}
	if err != nil {
		// One line a problem, without descriptor's package prefix: "rlpkit-filter: plugin
		// configuration: " already says what the lines are about.
		for _, line := range strings.Split(err.Error(), "\n") {
			f.host.Log(LogError, "rlpkit-filter: plugin configuration: "+strings.TrimPrefix(line, "descriptor: "))
		}
		return false
	}
	r.deny = r.engine.FailureModeDeny()
	r.timeout = uint32(cfg.CallTimeout().Milliseconds())
	for i := range r.engine.NumPolicies() {
		r.upstreams = append(r.upstreams, rlswire.AppendGrpcService(nil, r.engine.Policy(i).UpstreamCluster))
	}
	f.host.Log(LogInfo, "rlpkit-filter: configured with "+strconv.Itoa(r.engine.NumPolicies())+" rate-limit policies")
	return true
}

// OnRequestHeaders generates the request's descriptors and, when there are any, calls the
// rate-limit service and pauses the request.
func (f *Filter) OnRequestHeaders(id uint32) Action {
	s := f.streams[id]
	if s == nil {
		return Continue
	}
	r := f.roots[s.root]
	if r == nil || r.engine == nil {
		return Continue
	}
	pairs, st := f.host.RequestHeaders()
	if st != StatusOK {
		f.host.Log(LogWarn, "rlpkit-filter: reading the request headers: "+st.String())
		return f.fail(r)
	}
	req := descriptor.Request{Headers: headerPairs(pairs)}
	for _, h := range pairs {
		switch h.Key {
		case ":authority":
			req.Host = h.Value
		case ":path":
			req.Path = h.Value
		case ":method":
			req.Method = h.Value
		}
	}
	if addr, st := f.host.Property(propSourceAddress); st == StatusOK {
		req.RemoteAddress = string(addr)
	}
	f.dyn.reset()
	f.rt.reset()
	req.DynamicMetadata, req.RouteMetadata = &f.dyn, &f.rt
	r.engine.GenerateInto(&req, &f.res)
	if !f.res.ShouldCall() {
		return Continue
	}
	if len(f.res.ResponseCosts) > 0 {
		s.report = newReport(&f.res)
	}
	f.buf = rlsmsg.AppendRequest(f.buf[:0], &f.res.Request)
	token, st := f.host.GrpcCall(r.upstreams[f.res.PolicyIndex], Service, Method, f.buf, r.timeout)
	if st != StatusOK {
		f.host.Log(LogWarn, "rlpkit-filter: proxy_grpc_call to cluster "+strconv.Quote(r.engine.Policy(f.res.PolicyIndex).UpstreamCluster)+": "+st.String())
		return f.fail(r)
	}
	s.token, s.waiting = token, true
	f.calls[token] = id
	return Pause
}

// fail applies the failure mode inside a request's own callback: continue, or a local 500.
func (f *Filter) fail(r *root) Action {
	if !r.deny {
		return Continue
	}
	if f.reply(500, "rate_limit_service_failed", nil) {
		return Pause
	}
	return f.replyFailed(r, false)
}

// reply sends a local response on the effective context and reports whether the host took
// it.
func (f *Filter) reply(code uint32, details string, headers []Header) bool {
	st := f.host.SendLocalResponse(code, details, nil, headers)
	if st != StatusOK {
		f.host.Log(LogError, "rlpkit-filter: proxy_send_local_response "+strconv.Itoa(int(code))+": "+st.String())
	}
	return st == StatusOK
}

// replyFailed settles a request whose local response the host refused, so that it never
// stays paused: with failureModeDeny the request is closed (Envoy resets it), otherwise it
// continues, as any other failure of the filter. resumed says whether the request is
// paused (a reply callback) or still in its headers callback, whose returned action is
// what replyFailed returns.
func (f *Filter) replyFailed(r *root, resumed bool) Action {
	if r != nil && r.deny {
		if st := f.host.CloseRequest(); st != StatusOK {
			f.host.Log(LogError, "rlpkit-filter: proxy_close_stream: "+st.String()+"; the request stays paused until Envoy's own timeouts end it")
		}
		return Pause
	}
	if resumed {
		f.resume()
	}
	return Continue
}

// take forgets the call with token and returns its request context, or false when the call
// is unknown (its request went away first).
func (f *Filter) take(token uint32) (uint32, *stream, bool) {
	id, ok := f.calls[token]
	if !ok {
		return 0, nil, false
	}
	delete(f.calls, token)
	s := f.streams[id]
	if s == nil {
		return 0, nil, false
	}
	s.waiting = false
	return id, s, true
}

// OnGrpcReceive handles a reply: continue, a local 429, or the failure mode.
func (f *Filter) OnGrpcReceive(token, size uint32) {
	if f.takeReport(token) {
		return
	}
	id, s, ok := f.take(token)
	if !ok {
		f.host.Log(LogDebug, "rlpkit-filter: ignoring a reply for call "+strconv.FormatUint(uint64(token), 10)+" whose request is gone")
		return
	}
	if st := f.host.SetEffectiveContext(id); st != StatusOK {
		f.host.Log(LogWarn, "rlpkit-filter: proxy_set_effective_context: "+st.String())
		return
	}
	data, st := f.host.GrpcReceiveBuffer(size)
	if st != StatusOK && !(size == 0 && (st == StatusNotFound || st == StatusEmpty)) {
		f.host.Log(LogWarn, "rlpkit-filter: reading the rate-limit reply: "+st.String())
		f.resumeFailed(s)
		return
	}
	var resp rlsmsg.Response
	if err := rlsmsg.DecodeResponse(data, &resp); err != nil {
		f.host.Log(LogWarn, "rlpkit-filter: undecodable rate-limit reply: "+err.Error())
		f.resumeFailed(s)
		return
	}
	switch resp.OverallCode {
	case rlsmsg.CodeOK:
		s.headers = resp.ResponseHeadersToAdd
		f.resume()
	case rlsmsg.CodeOverLimit:
		s.report = nil // the local reply has no usage
		headers := make([]Header, 0, 1+len(resp.ResponseHeadersToAdd))
		headers = append(headers, Header{Key: "x-envoy-ratelimited", Value: "true"})
		for _, h := range resp.ResponseHeadersToAdd {
			headers = append(headers, Header(h))
		}
		if !f.reply(429, "request_rate_limited", headers) {
			f.replyFailed(f.roots[s.root], true)
		}
	default:
		f.host.Log(LogWarn, "rlpkit-filter: rate-limit reply with overall code "+strconv.Itoa(int(resp.OverallCode)))
		f.resumeFailed(s)
	}
}

// OnGrpcClose handles a call that ended without a reply: the failure mode.
func (f *Filter) OnGrpcClose(token, status uint32) {
	if f.takeReport(token) {
		f.host.Log(LogWarn, "rlpkit-filter: usage report failed with gRPC status "+strconv.FormatUint(uint64(status), 10))
		return
	}
	id, s, ok := f.take(token)
	if !ok {
		return
	}
	f.host.Log(LogWarn, "rlpkit-filter: rate-limit call failed with gRPC status "+strconv.FormatUint(uint64(status), 10))
	if st := f.host.SetEffectiveContext(id); st != StatusOK {
		f.host.Log(LogWarn, "rlpkit-filter: proxy_set_effective_context: "+st.String())
		return
	}
	f.resumeFailed(s)
}

// resumeFailed applies the failure mode of s's root on the effective context.
func (f *Filter) resumeFailed(s *stream) {
	if r := f.roots[s.root]; r != nil && r.deny {
		if !f.reply(500, "rate_limit_service_failed", nil) {
			f.replyFailed(r, true)
		}
		return
	}
	f.resume()
}

func (f *Filter) resume() {
	if st := f.host.ContinueRequest(); st != StatusOK {
		f.host.Log(LogError, "rlpkit-filter: proxy_continue_stream: "+st.String())
	}
}

// OnResponseHeaders adds the headers an OK reply asked for.
func (f *Filter) OnResponseHeaders(id uint32) Action {
	s := f.streams[id]
	if s == nil {
		return Continue
	}
	for _, h := range s.headers {
		if st := f.host.AddResponseHeader(h.Key, h.Value); st != StatusOK {
			f.host.Log(LogWarn, "rlpkit-filter: adding response header "+strconv.Quote(h.Key)+": "+st.String())
		}
	}
	s.headers = nil
	if s.report != nil {
		f.reportHeaders(s)
	}
	return Continue
}

// OnDone lets the host delete the context.
func (f *Filter) OnDone(uint32) bool { return true }

// OnDelete forgets a context, cancelling its call if one is in flight.
func (f *Filter) OnDelete(id uint32) {
	if s := f.streams[id]; s != nil {
		if s.waiting {
			delete(f.calls, s.token)
			if st := f.host.GrpcCancel(s.token); st != StatusOK && st != StatusNotFound {
				f.host.Log(LogDebug, "rlpkit-filter: proxy_grpc_cancel: "+st.String())
			}
		}
		delete(f.streams, id)
		return
	}
	delete(f.roots, id)
}

// InFlight returns the number of calls waiting for a reply, reports included, for tests and
// logs.
func (f *Filter) InFlight() int { return len(f.calls) + len(f.reports) }
