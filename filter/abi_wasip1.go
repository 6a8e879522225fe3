//go:build wasip1

package filter

import (
	"unsafe"
)

// ABI is the Host of a module running under a proxy-wasm host: its methods are the ABI
// 0.2.1 imports of module "env". Only meaningful in GOOS=wasip1 builds.
type ABI struct{}

var _ Host = ABI{}

// Buffer and header-map types of the ABI.
const (
	bufferResponseBody        = 1
	bufferGrpcReceive         = 5
	bufferPluginConfiguration = 7
	mapRequestHeaders         = 0
	mapResponseHeaders        = 2
	streamRequest             = 0
)

// allocations holds the memory the host asked for with proxy_on_memory_allocate until the
// call that asked for it hands it over: Go's collector must not free it while only the host
// knows its address.
var allocations = map[uint32][]byte{}

// Allocate is proxy_on_memory_allocate: size bytes the host will write into and pass back.
func Allocate(size uint32) unsafe.Pointer {
	b := make([]byte, max(size, 1))
	p := unsafe.Pointer(unsafe.SliceData(b))
	allocations[uint32(uintptr(p))] = b[:size]
	return p
}

// take returns the memory the host returned at addr and forgets it.
func take(addr, size uint32) []byte {
	b, ok := allocations[addr]
	if !ok {
		return nil
	}
	delete(allocations, addr)
	if int(size) > len(b) {
		size = uint32(len(b))
	}
	return b[:size]
}

//go:wasmimport env proxy_log
func proxyLog(level uint32, msg string) uint32

//go:wasmimport env proxy_get_buffer_bytes
func proxyGetBufferBytes(typ, start, maxSize uint32, retData, retSize *uint32) uint32

//go:wasmimport env proxy_get_header_map_pairs
func proxyGetHeaderMapPairs(typ uint32, retData, retSize *uint32) uint32

//go:wasmimport env proxy_add_header_map_value
func proxyAddHeaderMapValue(typ uint32, key, value string) uint32

//go:wasmimport env proxy_get_property
func proxyGetProperty(path string, retData, retSize *uint32) uint32

//go:wasmimport env proxy_grpc_call
func proxyGrpcCall(upstream unsafe.Pointer, upstreamSize uint32, service, method string,
	initialMetadata unsafe.Pointer, initialMetadataSize uint32, message unsafe.Pointer, messageSize uint32,
	timeoutMillis uint32, retToken *uint32) uint32

//go:wasmimport env proxy_grpc_cancel
func proxyGrpcCancel(token uint32) uint32

//go:wasmimport env proxy_set_effective_context
func proxySetEffectiveContext(id uint32) uint32

//go:wasmimport env proxy_continue_stream
func proxyContinueStream(typ uint32) uint32

//go:wasmimport env proxy_close_stream
func proxyCloseStream(typ uint32) uint32

//go:wasmimport env proxy_send_local_response
func proxySendLocalResponse(code uint32, details string, body unsafe.Pointer, bodySize uint32,
	headers unsafe.Pointer, headersSize uint32, grpcStatus int32) uint32

// Log implements Host.
func (ABI) Log(level LogLevel, msg string) { proxyLog(uint32(level), msg) }

// PluginConfiguration implements Host.
func (ABI) PluginConfiguration(size uint32) ([]byte, Status) {
	return bufferBytes(bufferPluginConfiguration, size)
}

// GrpcReceiveBuffer implements Host.
func (ABI) GrpcReceiveBuffer(size uint32) ([]byte, Status) {
	return bufferBytes(bufferGrpcReceive, size)
}

func bufferBytes(typ, size uint32) ([]byte, Status) {
	var addr, n uint32
	st := Status(proxyGetBufferBytes(typ, 0, size, &addr, &n))
	if st != StatusOK {
		return nil, st
	}
	return take(addr, n), StatusOK
}

// ResponseBody implements Host.
func (ABI) ResponseBody(size uint32) ([]byte, Status) {
	return bufferBytes(bufferResponseBody, size)
}

// RequestHeaders implements Host.
func (ABI) RequestHeaders() ([]Header, Status) { return headerMapPairs(mapRequestHeaders) }

// ResponseHeaders implements Host.
func (ABI) ResponseHeaders() ([]Header, Status) { return headerMapPairs(mapResponseHeaders) }

func headerMapPairs(typ uint32) ([]Header, Status) {
	var addr, n uint32
	st := Status(proxyGetHeaderMapPairs(typ, &addr, &n))
	if st != StatusOK {
		return nil, st
	}
	pairs, ok := DecodeHeaderMap(take(addr, n))
	if !ok {
		return nil, StatusParseFailure
	}
	return pairs, StatusOK
}

// Property implements Host.
func (ABI) Property(path string) ([]byte, Status) {
	var addr, n uint32
	st := Status(proxyGetProperty(path, &addr, &n))
	if st != StatusOK {
		return nil, st
	}
	return take(addr, n), StatusOK
}

// GrpcCall implements Host.
func (ABI) GrpcCall(upstream []byte, service, method string, message []byte, timeoutMillis uint32) (uint32, Status) {
	var token uint32
	st := Status(proxyGrpcCall(ptr(upstream), uint32(len(upstream)), service, method, nil, 0,
		ptr(message), uint32(len(message)), timeoutMillis, &token))
	return token, st
}

// GrpcCancel implements Host.
func (ABI) GrpcCancel(token uint32) Status { return Status(proxyGrpcCancel(token)) }

// SetEffectiveContext implements Host.
func (ABI) SetEffectiveContext(id uint32) Status { return Status(proxySetEffectiveContext(id)) }

// ContinueRequest implements Host.
func (ABI) ContinueRequest() Status { return Status(proxyContinueStream(streamRequest)) }

// CloseRequest implements Host.
func (ABI) CloseRequest() Status { return Status(proxyCloseStream(streamRequest)) }

// SendLocalResponse implements Host.
func (ABI) SendLocalResponse(code uint32, details string, body []byte, headers []Header) Status {
	h := EncodeHeaderMap(nil, headers)
	return Status(proxySendLocalResponse(code, details, ptr(body), uint32(len(body)), ptr(h), uint32(len(h)), -1))
}

// AddResponseHeader implements Host.
func (ABI) AddResponseHeader(key, value string) Status {
	return Status(proxyAddHeaderMapValue(mapResponseHeaders, key, value))
}

func ptr(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(unsafe.SliceData(b))
}
