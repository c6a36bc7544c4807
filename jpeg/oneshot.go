package jpeg

/*
#include <malloc.h>

// Freed blocks up to this size stay in the heap for the next allocation
// instead of going back to the kernel.
static void acb_keep_freed_memory(void) {
	mallopt(M_MMAP_THRESHOLD, 64 << 20);
	mallopt(M_TRIM_THRESHOLD, 128 << 20);
	mallopt(M_ARENA_MAX, 1);
}
*/
import "C"

// KeepFreedMemory tunes the C allocator for a process that encodes one
// picture and exits (acbridge photo): libjpeg's buffers freed after a
// trial encode are reused by the next one instead of being unmapped and
// faulted in afresh. Page faults were the largest single cost of such a
// process, ~950 of them (a sixth) on a 2.3 MP photo. A daemon must not
// call it: the memory would stay mapped between photos.
func KeepFreedMemory() {
	C.acb_keep_freed_memory()
}
