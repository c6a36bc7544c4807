package audio

// #include <stdlib.h>
import "C"

import "unsafe"

// cfree releases C memory that malgo allocates for a device id and leaves
// to its caller.
func cfree(p unsafe.Pointer) { C.free(p) }
