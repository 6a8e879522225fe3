//go:build !unix

package rls

import "time"

// processCPU is 0 where getrusage is not offered: no cpu-ns/op metric.
func processCPU() time.Duration { return 0 }
