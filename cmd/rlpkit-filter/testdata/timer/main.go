//go:build wasip1

// Command timer is a proxy-wasm module that sleeps in proxy_on_vm_start: under Envoy's
// poll_oneoff stub the Go runtime cannot wait for the timer and the VM traps. The host
// harness of cmd/rlpkit-filter must show that.
package main

import (
	"time"
	"unsafe"
)

func main() {}

var keep [][]byte

//go:wasmexport proxy_abi_version_0_2_1
func abi() {}

//go:wasmexport proxy_on_memory_allocate
func alloc(size uint32) unsafe.Pointer {
	b := make([]byte, size+1)
	keep = append(keep, b)
	return unsafe.Pointer(&b[0])
}

//go:wasmexport proxy_on_vm_start
func vmStart(root, size uint32) bool {
	// Long enough that the runtime must wait for it, however slowly the VM runs; a host
	// whose poll_oneoff works returns after a second.
	time.Sleep(time.Second)
	return true
}
