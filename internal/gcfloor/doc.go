// Package gcfloor keeps the Go garbage collector of a server with a small
// live heap from running every few megabytes of allocation.
//
// The collector starts a cycle when the heap has grown by GOGC percent (100
// by default) of what the last one left live, and never below a 4 MB goal.
// A Rate Limit Service keeps little live (the memory store's counters, a few
// megabytes) but allocates several kilobytes per call in grpc-go's HTTP/2
// transport alone, so at ten thousand calls a second it collected several
// times a second, and marking, sweeping, assisting and returning memory to
// the operating system took a quarter of its CPU time. Start raises GOGC,
// after every cycle, so that the next one starts no sooner than a floor of
// allocation later: a server then spends a bounded amount of memory (the
// floor, 32 MiB by default, of garbage at most) for collecting far less
// often, and one whose live heap exceeds the floor keeps GOGC's behaviour.
// GOGC is a percentage of the live heap plus the stacks and globals the
// collector scans, and the runtime's minimum heap goal (4 MiB at GOGC=100)
// scales with it: Start counts both, so that the goal stays near the live
// heap plus the floor (a GOGC computed from the live heap alone reached a
// 128 MiB goal for a 1 MiB heap).
//
// GOGC and GOMEMLIMIT remain the operator's: when either is set in the
// environment, Start leaves the collector alone.
package gcfloor
