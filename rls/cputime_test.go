//go:build unix

package rls

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user and system) this process has used:
// what a benchmark costs the server, whatever else the machine runs.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
