//go:build wasip1

// Command restricted is a proxy-wasm module that calls proxy_set_effective_context while
// Go's runtime initializes (during _initialize), which Envoy's host does not allow. The host
// harness of cmd/rlpkit-filter must refuse it.
package main

import "unsafe"

func main() {}

//go:wasmimport env proxy_set_effective_context
func setEffectiveContext(id uint32) uint32

var status = setEffectiveContext(1)

var keep [][]byte

//go:wasmexport proxy_abi_version_0_2_1
func abi() {}

//go:wasmexport proxy_on_memory_allocate
func alloc(size uint32) unsafe.Pointer {
	b := make([]byte, size+1)
	keep = append(keep, b)
	return unsafe.Pointer(&b[0])
}
