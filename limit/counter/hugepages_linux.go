package counter

import "syscall"

// hugePages asks the kernel to back b with transparent huge pages where it
// can (MADV_HUGEPAGE: honoured when THP is set to always or madvise). It is
// a hint: an error leaves b as it was, ordinary memory.
func hugePages(b []byte) {
	_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE)
}
