//go:build !linux

package counter

// hugePages does nothing where the kernel takes no MADV_HUGEPAGE: b stays
// ordinary memory.
func hugePages(b []byte) {}
