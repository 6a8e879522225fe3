//go:build wasip1

// Command rlpkit-filter is rlpkit's rate-limit filter as a proxy-wasm (ABI 0.2.1) module
// for Envoy's envoy.filters.http.wasm. Build it with
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -ldflags='-s -w' -o rlpkit-filter.wasm ./cmd/rlpkit-filter
//
// Its plugin configuration is a PluginConfig as JSON (`rlpkit compile -o json` prints one
// per Gateway). What it does per request is documented in package filter; this file is only
// the table of exports the host calls.
package main

import (
	"unsafe"

	"github.com/rlpkit/rlpkit/filter"
)

var f = filter.New(filter.ABI{})

// main is not called: a c-shared build is a reactor, started by _initialize.
func main() {}

//go:wasmexport proxy_abi_version_0_2_1
func proxyABIVersion() {}

//go:wasmexport proxy_on_memory_allocate
func proxyOnMemoryAllocate(size uint32) unsafe.Pointer { return filter.Allocate(size) }

//go:wasmexport proxy_on_context_create
func proxyOnContextCreate(id, parent uint32) { f.OnContextCreate(id, parent) }

//go:wasmexport proxy_on_vm_start
func proxyOnVMStart(id, size uint32) bool { return f.OnVMStart(id, size) }

//go:wasmexport proxy_on_configure
func proxyOnConfigure(id, size uint32) bool { return f.OnConfigure(id, size) }

//go:wasmexport proxy_on_request_headers
func proxyOnRequestHeaders(id, headers uint32, endOfStream bool) uint32 {
	return uint32(f.OnRequestHeaders(id))
}

//go:wasmexport proxy_on_response_headers
func proxyOnResponseHeaders(id, headers uint32, endOfStream bool) uint32 {
	return uint32(f.OnResponseHeaders(id))
}

//go:wasmexport proxy_on_response_body
func proxyOnResponseBody(id, size uint32, endOfStream bool) uint32 {
	return uint32(f.OnResponseBody(id, size, endOfStream))
}

//go:wasmexport proxy_on_grpc_receive
func proxyOnGrpcReceive(root, token, size uint32) { f.OnGrpcReceive(token, size) }

//go:wasmexport proxy_on_grpc_close
func proxyOnGrpcClose(root, token, status uint32) { f.OnGrpcClose(token, status) }

//go:wasmexport proxy_on_done
func proxyOnDone(id uint32) bool { return f.OnDone(id) }

//go:wasmexport proxy_on_delete
func proxyOnDelete(id uint32) { f.OnDelete(id) }
