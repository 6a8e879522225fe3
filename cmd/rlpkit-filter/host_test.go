package main

import (
	"context"
	"encoding/binary"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/mem"
	grpcstatus "google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// This file is a proxy-wasm host on wazero that behaves as Envoy's (proxy-wasm-cpp-host,
// src/wasm.cc and src/exports.cc, as loaded by envoy.filters.http.wasm) in what the filter
// relies on:
//   - the ABI version comes from the export proxy_abi_version_0_2_1; memory for returned
//     values comes from malloc if exported, else proxy_on_memory_allocate;
//   - _initialize runs first, then main if exported; during _initialize and inside the
//     allocator only logging, clock, random, args, environment and stdio calls are allowed,
//     anything else traps;
//   - the root context is created, then proxy_on_vm_start, then proxy_on_configure, and the
//     plugin configuration is readable only then;
//   - gRPC call results arrive on the root context's id (proxy_on_grpc_receive with the
//     reply in buffer type 5, or only proxy_on_grpc_close with the status); the upstream is
//     parsed as a serialized GrpcService first, else taken as a cluster name;
//   - continue and local replies act on the effective context and are ignored on a root
//     context (the request hangs); a local reply's header names are lower-cased (Envoy
//     applies the reply after the callback returns; the harness records it when issued, and
//     the tests check that a request gets exactly one of continue and reply);
//   - proxy_get_header_map_value returns the first value of a header, the pairs call every
//     value; property paths are NUL-separated;
//   - a cancelled call delivers nothing; a request that ends does not cancel its call.
// Calls go to real gRPC servers: the message bytes the module wrote are sent as they are.

// The proxy-wasm statuses the host returns.
const (
	wasmOK                  = 0
	wasmNotFound            = 1
	wasmBadArgument         = 2
	wasmInvalidMemoryAccess = 6
	wasmInternalFailure     = 10
)

// restrictedAllowed are the calls cpp-host allows during _initialize and inside the
// allocator.
var restrictedAllowed = map[string]bool{
	"proxy_log": true, "fd_write": true, "args_sizes_get": true, "args_get": true,
	"environ_sizes_get": true, "environ_get": true, "fd_prestat_get": true, "fd_prestat_dir_name": true,
	"clock_time_get": true, "random_get": true, "fd_fdstat_get": true, "fd_fdstat_set_flags": true,
	"sched_yield": true, "poll_oneoff": true,
}

// compiled caches compiled modules across hosts of one test binary.
var compiled = wazero.NewCompilationCache()

// host is one VM with its root context: one Envoy worker thread's copy of the plugin.
type host struct {
	t      testing.TB
	ctx    context.Context
	rt     wazero.Runtime
	mod    api.Module
	alloc  api.Function
	fns    map[string]api.Function
	root   uint32
	nextID uint32

	restricted string // "_initialize" or "allocator" while restricted
	effective  uint32
	config     []byte // readable during proxy_on_configure only
	configOK   bool
	grpcBuf    []byte // readable during proxy_on_grpc_receive only
	hasGrpcBuf bool
	bodyBuf    []byte // readable during proxy_on_response_body only
	hasBodyBuf bool

	streams   map[uint32]*stream
	clusters  map[string]*grpc.ClientConn
	calls     map[uint32]*call
	nextToken uint32
	done      chan *call

	logs        []string
	stdio       []byte
	pollOneoff  int
	ignored     []string // continues and replies issued on the root context
	cancelled   int
	wasiCounter map[string]int
	interpreter bool
	canned      map[string][]byte
	refuseLocal bool // proxy_send_local_response fails with InternalFailure
}

// stream is a request context as the host sees it.
type stream struct {
	id       uint32
	headers  [][2]string
	props    map[string][]byte
	action   uint32 // proxy_on_request_headers' result
	respHdrs [][2]string
	added    [][2]string // response headers the module added

	continued int
	reply     *localReply
	replies   int
	closed    int // proxy_close_stream calls
	deleted   bool
}

// localReply is a proxy_send_local_response.
type localReply struct {
	code    uint32
	details string
	body    string
	headers [][2]string
}

// call is a gRPC call in flight or done.
type call struct {
	token     uint32
	stream    uint32 // the effective context that made it
	cluster   string
	service   string
	method    string
	message   []byte
	timeout   time.Duration
	cancel    context.CancelFunc
	cancelled bool
	reply     []byte
	code      codes.Code
}

// hostOption changes what newHost sets up.
type hostOption func(*host)

// withInterpreter runs the module in wazero's interpreter, which compiles much faster: for
// modules that run little.
func withInterpreter() hostOption { return func(h *host) { h.interpreter = true } }

// withRefusedLocalReplies makes every proxy_send_local_response fail, as Envoy's does when
// the stream can no longer take a local reply.
func withRefusedLocalReplies() hostOption { return func(h *host) { h.refuseLocal = true } }

// withCannedCluster answers every call to cluster at once with reply, without gRPC: for
// benchmarks of the module's own cost.
func withCannedCluster(name string, reply []byte) hostOption {
	return func(h *host) { h.canned[name] = reply }
}

// withCluster routes calls to cluster over conn.
func withCluster(name string, conn *grpc.ClientConn) hostOption {
	return func(h *host) { h.clusters[name] = conn }
}

// newHost instantiates module as Envoy does and configures it with pluginConfig. It returns
// the host and whether proxy_on_configure succeeded; a trap fails the test.
func newHost(t testing.TB, module []byte, pluginConfig []byte, opts ...hostOption) (*host, bool) {
	t.Helper()
	h, ok, err := startHost(t, module, pluginConfig, opts...)
	if err != nil {
		t.Fatalf("starting the module: %v\nlogs:\n%s", err, h.dump())
	}
	return h, ok
}

// startHost is newHost returning errors, for tests of modules that must fail.
func startHost(t testing.TB, module []byte, pluginConfig []byte, opts ...hostOption) (*host, bool, error) {
	ctx := context.Background()
	h := &host{t: t, ctx: ctx, nextID: 1, streams: map[uint32]*stream{}, clusters: map[string]*grpc.ClientConn{},
		calls: map[uint32]*call{}, canned: map[string][]byte{}, done: make(chan *call, 1024), fns: map[string]api.Function{}, wasiCounter: map[string]int{}}
	for _, o := range opts {
		o(h)
	}
	rc := wazero.NewRuntimeConfig()
	if h.interpreter {
		rc = wazero.NewRuntimeConfigInterpreter()
	}
	rt := wazero.NewRuntimeWithConfig(ctx, rc.WithCompilationCache(compiled))
	h.rt = rt
	t.Cleanup(func() { rt.Close(ctx) }) // not h: a benchmark must not keep every VM alive
	if err := h.instantiateWASI(ctx, h.rt); err != nil {
		return h, false, err
	}
	if err := h.instantiateEnv(ctx); err != nil {
		return h, false, err
	}
	cm, err := h.rt.CompileModule(ctx, module)
	if err != nil {
		return h, false, err
	}
	if _, ok := cm.ExportedFunctions()["proxy_abi_version_0_2_1"]; !ok {
		return h, false, errors.New("the module does not export proxy_abi_version_0_2_1")
	}
	h.mod, err = h.rt.InstantiateModule(ctx, cm, wazero.NewModuleConfig().WithStartFunctions().WithName("plugin"))
	if err != nil {
		return h, false, err
	}
	for name := range cm.ExportedFunctions() {
		h.fns[name] = h.mod.ExportedFunction(name)
	}
	if h.alloc = h.fns["malloc"]; h.alloc == nil {
		h.alloc = h.fns["proxy_on_memory_allocate"]
	}
	if h.alloc == nil {
		return h, false, errors.New("the module exports neither malloc nor proxy_on_memory_allocate")
	}
	if f := h.fns["_initialize"]; f != nil {
		h.restricted = "_initialize"
		_, err := f.Call(ctx)
		h.restricted = ""
		if err != nil {
			return h, false, err
		}
	}
	if f := h.fns["main"]; f != nil {
		if _, err := f.Call(ctx, 0, 0); err != nil {
			return h, false, err
		}
	}
	h.root = h.newID()
	if _, err := h.callback("proxy_on_context_create", h.root, uint64(h.root), 0); err != nil {
		return h, false, err
	}
	if r, err := h.callback("proxy_on_vm_start", h.root, uint64(h.root), 0); err != nil || r == 0 {
		return h, false, errors.Join(err, errors.New("proxy_on_vm_start failed"))
	}
	h.config, h.configOK = pluginConfig, true
	r, err := h.callback("proxy_on_configure", h.root, uint64(h.root), uint64(len(pluginConfig)))
	h.config, h.configOK = nil, false
	return h, r != 0, err
}

func (h *host) newID() uint32 { id := h.nextID; h.nextID++; return id }

// callback runs an exported callback with ctx as the current and effective context; a
// missing export is skipped, as cpp-host skips it. Local replies apply after it returns.
func (h *host) callback(name string, ctx uint32, args ...uint64) (uint64, error) {
	f := h.fns[name]
	if f == nil {
		return 0, nil
	}
	h.effective = ctx
	res, err := f.Call(h.ctx, args...)
	h.effective = 0
	if err != nil {
		return 0, errors.New(name + ": " + err.Error())
	}
	if len(res) == 0 {
		return 0, nil
	}
	return res[0], nil
}

// mustCallback is callback failing the test on a trap.
func (h *host) mustCallback(name string, ctx uint32, args ...uint64) uint64 {
	h.t.Helper()
	r, err := h.callback(name, ctx, args...)
	if err != nil {
		h.t.Fatalf("the VM trapped: %v\nlogs:\n%s", err, h.dump())
	}
	return r
}

// dump returns the module's logs and stdio for failure messages.
func (h *host) dump() string {
	if h == nil {
		return ""
	}
	return strings.Join(h.logs, "\n") + "\n" + string(h.stdio)
}

// wasiCall checks that a call is allowed now and counts it.
func (h *host) wasiCall(name string) {
	h.wasiCounter[name]++
	if h.restricted != "" && !restrictedAllowed[name] {
		panic("restricted call " + name + " during " + h.restricted)
	}
}

// returnBytes copies b into guest memory from the module's allocator and writes its address
// and size at retData and retSize.
func (h *host) returnBytes(m api.Module, b []byte, retData, retSize uint32) uint32 {
	prev := h.restricted
	h.restricted = "allocator"
	res, err := h.alloc.Call(h.ctx, uint64(len(b)))
	h.restricted = prev
	if err != nil {
		panic("allocator: " + err.Error())
	}
	p := uint32(res[0])
	if p == 0 || !m.Memory().Write(p, b) || !m.Memory().WriteUint32Le(retData, p) || !m.Memory().WriteUint32Le(retSize, uint32(len(b))) {
		return wasmInvalidMemoryAccess
	}
	return wasmOK
}

func read(m api.Module, p, n uint32) []byte {
	b, ok := m.Memory().Read(p, n)
	if !ok {
		panic("memory access out of bounds: " + itoa(p) + "+" + itoa(n))
	}
	return slices.Clone(b)
}

func itoa(n uint32) string { return strconv.FormatUint(uint64(n), 10) }

// instantiateEnv provides the proxy-wasm imports of module "env".
func (h *host) instantiateEnv(ctx context.Context) error {
	b := h.rt.NewHostModuleBuilder("env")
	fn := func(name string, f any) { b.NewFunctionBuilder().WithFunc(f).Export(name) }
	fn("proxy_log", func(_ context.Context, m api.Module, level, p, n uint32) uint32 {
		h.wasiCall("proxy_log")
		h.logs = append(h.logs, "["+itoa(level)+"] "+string(read(m, p, n)))
		return wasmOK
	})
	fn("proxy_get_buffer_bytes", func(_ context.Context, m api.Module, typ, start, max, retData, retSize uint32) uint32 {
		h.wasiCall("proxy_get_buffer_bytes")
		var buf []byte
		switch {
		case typ == 7 && h.configOK:
			buf = h.config
		case typ == 5 && h.hasGrpcBuf:
			buf = h.grpcBuf
		case typ == 1 && h.hasBodyBuf:
			buf = h.bodyBuf
		default:
			return wasmNotFound
		}
		if start > uint32(len(buf)) {
			return wasmBadArgument
		}
		buf = buf[start:]
		if uint32(len(buf)) > max {
			buf = buf[:max]
		}
		return h.returnBytes(m, buf, retData, retSize)
	})
	fn("proxy_get_header_map_pairs", func(_ context.Context, m api.Module, typ, retData, retSize uint32) uint32 {
		h.wasiCall("proxy_get_header_map_pairs")
		hdrs, st := h.headerMap(typ)
		if st != wasmOK {
			return st
		}
		return h.returnBytes(m, encodePairs(hdrs), retData, retSize)
	})
	fn("proxy_get_header_map_value", func(_ context.Context, m api.Module, typ, kp, kn, retData, retSize uint32) uint32 {
		h.wasiCall("proxy_get_header_map_value")
		hdrs, st := h.headerMap(typ)
		if st != wasmOK {
			return st
		}
		key := strings.ToLower(string(read(m, kp, kn)))
		for _, kv := range hdrs {
			if kv[0] == key {
				return h.returnBytes(m, []byte(kv[1]), retData, retSize)
			}
		}
		return wasmNotFound
	})
	fn("proxy_add_header_map_value", func(_ context.Context, m api.Module, typ, kp, kn, vp, vn uint32) uint32 {
		h.wasiCall("proxy_add_header_map_value")
		s := h.streams[h.effective]
		if s == nil || typ != 2 {
			return wasmBadArgument
		}
		s.added = append(s.added, [2]string{strings.ToLower(string(read(m, kp, kn))), string(read(m, vp, vn))})
		return wasmOK
	})
	fn("proxy_get_property", func(_ context.Context, m api.Module, pp, pn, retData, retSize uint32) uint32 {
		h.wasiCall("proxy_get_property")
		s := h.streams[h.effective]
		if s == nil {
			return wasmNotFound
		}
		v, ok := s.props[string(read(m, pp, pn))]
		if !ok {
			return wasmNotFound
		}
		return h.returnBytes(m, v, retData, retSize)
	})
	fn("proxy_grpc_call", func(_ context.Context, m api.Module, up, un, sp, sn, mp, mn, ip, in, msgp, msgn, timeout, retToken uint32) uint32 {
		h.wasiCall("proxy_grpc_call")
		return h.grpcCall(m, read(m, up, un), string(read(m, sp, sn)), string(read(m, mp, mn)), read(m, msgp, msgn), timeout, retToken)
	})
	fn("proxy_grpc_cancel", func(_ context.Context, _ api.Module, token uint32) uint32 {
		h.wasiCall("proxy_grpc_cancel")
		c := h.calls[token]
		if c == nil || c.cancelled {
			return wasmNotFound
		}
		c.cancelled = true
		c.cancel()
		h.cancelled++
		return wasmOK
	})
	fn("proxy_set_effective_context", func(_ context.Context, _ api.Module, id uint32) uint32 {
		h.wasiCall("proxy_set_effective_context")
		if s := h.streams[id]; (s == nil || s.deleted) && id != h.root {
			return wasmBadArgument
		}
		h.effective = id
		return wasmOK
	})
	fn("proxy_continue_stream", func(_ context.Context, _ api.Module, typ uint32) uint32 {
		h.wasiCall("proxy_continue_stream")
		s := h.streams[h.effective]
		if s == nil {
			h.ignored = append(h.ignored, "continue on context "+itoa(h.effective))
			return wasmOK
		}
		s.continued++
		return wasmOK
	})
	fn("proxy_close_stream", func(_ context.Context, _ api.Module, typ uint32) uint32 {
		h.wasiCall("proxy_close_stream")
		s := h.streams[h.effective]
		if s == nil {
			h.ignored = append(h.ignored, "close on context "+itoa(h.effective))
			return wasmOK
		}
		if typ != 0 { // HttpRequest
			return wasmBadArgument
		}
		s.closed++
		return wasmOK
	})
	fn("proxy_send_local_response", func(_ context.Context, m api.Module, code, dp, dn, bp, bn, hp, hn uint32, grpcStatus int32) uint32 {
		h.wasiCall("proxy_send_local_response")
		s := h.streams[h.effective]
		if s == nil {
			h.ignored = append(h.ignored, "local reply "+itoa(code)+" on context "+itoa(h.effective))
			return wasmOK
		}
		if h.refuseLocal {
			return wasmInternalFailure
		}
		pairs, ok := decodePairs(read(m, hp, hn))
		if !ok {
			return wasmBadArgument
		}
		for i := range pairs {
			pairs[i][0] = strings.ToLower(pairs[i][0])
		}
		s.reply = &localReply{code: code, details: string(read(m, dp, dn)), body: string(read(m, bp, bn)), headers: pairs}
		s.replies++
		return wasmOK
	})
	_, err := b.Instantiate(ctx)
	return err
}

// headerMap returns the effective stream's header map typ.
func (h *host) headerMap(typ uint32) ([][2]string, uint32) {
	s := h.streams[h.effective]
	if s == nil {
		return nil, wasmBadArgument
	}
	switch typ {
	case 0:
		return s.headers, wasmOK
	case 2:
		return s.respHdrs, wasmOK
	}
	return nil, wasmBadArgument
}

// grpcCall starts a call on a real connection; its result is queued on h.done for a test to
// deliver.
func (h *host) grpcCall(m api.Module, upstream []byte, service, method string, msg []byte, timeout, retToken uint32) uint32 {
	cluster := string(upstream)
	var gs corev3.GrpcService
	if err := proto.Unmarshal(upstream, &gs); err == nil && gs.GetEnvoyGrpc() != nil {
		cluster = gs.GetEnvoyGrpc().GetClusterName()
	}
	conn := h.clusters[cluster]
	reply, canned := h.canned[cluster]
	if conn == nil && !canned {
		h.logs = append(h.logs, "host: no cluster "+strconv.Quote(cluster))
		return wasmBadArgument
	}
	h.nextToken++
	c := &call{token: h.nextToken, stream: h.effective, cluster: cluster, service: service, method: method, message: msg,
		timeout: time.Duration(timeout) * time.Millisecond}
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	c.cancel = cancel
	h.calls[c.token] = c
	if !m.Memory().WriteUint32Le(retToken, c.token) {
		return wasmInvalidMemoryAccess
	}
	if canned {
		cancel()
		c.reply = reply
		h.done <- c
		return wasmOK
	}
	go func() {
		defer cancel()
		var reply []byte
		err := conn.Invoke(ctx, "/"+service+"/"+method, &msg, &reply, grpc.ForceCodecV2(rawCodec{}))
		c.reply, c.code = reply, grpcstatus.Code(err)
		h.done <- c
	}()
	return wasmOK
}

// rawCodec sends and receives message bytes as they are.
type rawCodec struct{}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(*v.(*[]byte))}, nil
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	*v.(*[]byte) = data.Materialize()
	return nil
}

func (rawCodec) Name() string { return "proto" }

// next waits for the next finished call.
func (h *host) next() *call {
	h.t.Helper()
	select {
	case c := <-h.done:
		return c
	case <-time.After(30 * time.Second):
		h.t.Fatalf("no gRPC call finished within 30s")
		return nil
	}
}

// deliver hands a finished call to the module on the root context, as Envoy does: nothing
// for a cancelled call, proxy_on_grpc_receive for a reply, proxy_on_grpc_close for a
// failure.
func (h *host) deliver(c *call) {
	h.t.Helper()
	if c.cancelled {
		return
	}
	h.deliverAnyway(c)
}

// deliverAnyway delivers c even if it was cancelled: a reply already on its way when the
// module cancelled.
func (h *host) deliverAnyway(c *call) {
	h.t.Helper()
	delete(h.calls, c.token)
	if c.code == codes.OK {
		h.grpcBuf, h.hasGrpcBuf = c.reply, true
		h.mustCallback("proxy_on_grpc_receive", h.root, uint64(h.root), uint64(c.token), uint64(len(c.reply)))
		h.grpcBuf, h.hasGrpcBuf = nil, false
		return
	}
	h.mustCallback("proxy_on_grpc_close", h.root, uint64(h.root), uint64(c.token), uint64(c.code))
}

// request sends a request's headers through the filter. headers are [name, value] pairs,
// names lower-case, pseudo-headers included; props are properties by NUL-separated path.
func (h *host) request(headers [][2]string, props map[string][]byte) *stream {
	h.t.Helper()
	s := &stream{id: h.newID(), headers: headers, props: props}
	h.streams[s.id] = s
	h.mustCallback("proxy_on_context_create", s.id, uint64(s.id), uint64(h.root))
	s.action = uint32(h.mustCallback("proxy_on_request_headers", s.id, uint64(s.id), uint64(len(headers)), 1))
	return s
}

// respond sends the upstream's response headers through the filter.
func (h *host) respond(s *stream, headers [][2]string) {
	h.t.Helper()
	s.respHdrs = headers
	h.mustCallback("proxy_on_response_headers", s.id, uint64(s.id), uint64(len(headers)), 1)
}

// respondStreaming sends response headers that a body follows (end_of_stream false).
func (h *host) respondStreaming(s *stream, headers [][2]string) {
	h.t.Helper()
	s.respHdrs = headers
	h.mustCallback("proxy_on_response_headers", s.id, uint64(s.id), uint64(len(headers)), 0)
}

// respondBody sends one chunk of the response body, as Envoy does with a buffer holding
// only that chunk, and returns the module's action.
func (h *host) respondBody(s *stream, chunk string, endOfStream bool) uint32 {
	h.t.Helper()
	h.bodyBuf, h.hasBodyBuf = []byte(chunk), true
	end := uint64(0)
	if endOfStream {
		end = 1
	}
	a := uint32(h.mustCallback("proxy_on_response_body", s.id, uint64(s.id), uint64(len(chunk)), end))
	h.bodyBuf, h.hasBodyBuf = nil, false
	return a
}

// end finishes a stream: proxy_on_done then proxy_on_delete.
func (h *host) end(s *stream) {
	h.t.Helper()
	h.mustCallback("proxy_on_done", s.id, uint64(s.id))
	h.mustCallback("proxy_on_delete", s.id, uint64(s.id))
	s.deleted = true
	delete(h.streams, s.id)
}

// memory returns the size of the module's linear memory.
func (h *host) memory() uint32 { return h.mod.Memory().Size() }

// encodePairs serializes a header map as proxy-wasm does.
func encodePairs(pairs [][2]string) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(pairs)))
	for _, kv := range pairs {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(kv[0])))
		b = binary.LittleEndian.AppendUint32(b, uint32(len(kv[1])))
	}
	for _, kv := range pairs {
		b = append(append(b, kv[0]...), 0)
		b = append(append(b, kv[1]...), 0)
	}
	return b
}

// decodePairs parses a serialized header map.
func decodePairs(b []byte) ([][2]string, bool) {
	if len(b) == 0 {
		return nil, true
	}
	if len(b) < 4 {
		return nil, false
	}
	n := int(binary.LittleEndian.Uint32(b))
	if len(b) < 4+8*n {
		return nil, false
	}
	data := b[4+8*n:]
	out := make([][2]string, n)
	for i := range out {
		kl := int(binary.LittleEndian.Uint32(b[4+8*i:]))
		vl := int(binary.LittleEndian.Uint32(b[8+8*i:]))
		if len(data) < kl+vl+2 {
			return nil, false
		}
		out[i] = [2]string{string(data[:kl]), string(data[kl+1 : kl+1+vl])}
		data = data[kl+vl+2:]
	}
	return out, true
}
