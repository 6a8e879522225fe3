package counter

import (
	"syscall"
	"time"
	"unsafe"
)

// threadCPU returns the CPU time the calling thread has used
// (CLOCK_THREAD_CPUTIME_ID), or 0 when the kernel does not tell.
func threadCPU() time.Duration {
	const clockThreadCPUTime = 3
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0
	}
	return time.Duration(ts.Nano())
}
