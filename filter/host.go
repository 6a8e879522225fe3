package filter

import "strconv"

// Status is a proxy-wasm WasmResult.
type Status uint32

// The proxy-wasm statuses (WasmResult).
const (
	StatusOK                  Status = 0
	StatusNotFound            Status = 1
	StatusBadArgument         Status = 2
	StatusSerializationFailed Status = 3
	StatusParseFailure        Status = 4
	StatusInvalidMemoryAccess Status = 6
	StatusEmpty               Status = 7
	StatusInternalFailure     Status = 10
	StatusUnimplemented       Status = 12
)

// String names the status as the proxy-wasm spec does.
func (s Status) String() string {
	switch s {
	case StatusOK:
		return "Ok"
	case StatusNotFound:
		return "NotFound"
	case StatusBadArgument:
		return "BadArgument"
	case StatusSerializationFailed:
		return "SerializationFailure"
	case StatusParseFailure:
		return "ParseFailure"
	case StatusInvalidMemoryAccess:
		return "InvalidMemoryAccess"
	case StatusEmpty:
		return "Empty"
	case StatusInternalFailure:
		return "InternalFailure"
	case StatusUnimplemented:
		return "Unimplemented"
	}
	return "Status(" + strconv.FormatUint(uint64(s), 10) + ")"
}

// LogLevel is a proxy-wasm log level.
type LogLevel uint32

// The proxy-wasm log levels.
const (
	LogTrace LogLevel = iota
	LogDebug
	LogInfo
	LogWarn
	LogError
	LogCritical
)

// Action is what a stream callback returns.
type Action uint32

// The proxy-wasm filter header statuses.
const (
	// Continue lets the stream go on.
	Continue Action = 0
	// Pause stops it until the filter continues it or replies (Envoy's StopIteration,
	// which Envoy turns into StopAllIterationAndWatermark: the body waits too).
	Pause Action = 1
)

// Header is one header of a header map.
type Header struct {
	Key, Value string
}

// Host is the part of the proxy-wasm host API the filter uses. cmd/rlpkit-filter implements
// it over the ABI's imports; a test may implement it in Go.
type Host interface {
	// Log writes msg at level (proxy_log).
	Log(level LogLevel, msg string)
	// PluginConfiguration returns the plugin configuration buffer (proxy_get_buffer_bytes
	// of type PluginConfiguration).
	PluginConfiguration(size uint32) ([]byte, Status)
	// RequestHeaders returns every request header, repeated ones as several pairs
	// (proxy_get_header_map_pairs of RequestHeaders).
	RequestHeaders() ([]Header, Status)
	// ResponseHeaders returns every response header (proxy_get_header_map_pairs of
	// ResponseHeaders).
	ResponseHeaders() ([]Header, Status)
	// ResponseBody returns the body chunk proxy_on_response_body announced
	// (proxy_get_buffer_bytes of type HttpResponseBody).
	ResponseBody(size uint32) ([]byte, Status)
	// Property returns the property at path, segments separated by NUL (proxy_get_property).
	Property(path string) ([]byte, Status)
	// GrpcCall starts a unary call and returns its token (proxy_grpc_call).
	GrpcCall(upstream []byte, service, method string, message []byte, timeoutMillis uint32) (uint32, Status)
	// GrpcCancel cancels a call (proxy_grpc_cancel).
	GrpcCancel(token uint32) Status
	// GrpcReceiveBuffer returns a call's reply while proxy_on_grpc_receive runs
	// (proxy_get_buffer_bytes of type GrpcReceiveBuffer).
	GrpcReceiveBuffer(size uint32) ([]byte, Status)
	// SetEffectiveContext makes later calls of this callback act on context id
	// (proxy_set_effective_context).
	SetEffectiveContext(id uint32) Status
	// ContinueRequest resumes the paused request (proxy_continue_stream).
	ContinueRequest() Status
	// SendLocalResponse replies to the client instead of the upstream
	// (proxy_send_local_response).
	SendLocalResponse(code uint32, details string, body []byte, headers []Header) Status
	// CloseRequest ends the request without a reply from the filter
	// (proxy_close_stream of HttpRequest; Envoy resets the stream).
	CloseRequest() Status
	// AddResponseHeader adds a header to the response (proxy_add_header_map_value of
	// ResponseHeaders).
	AddResponseHeader(key, value string) Status
}
