package term

import (
	"strconv"
	"unsafe"
)

func ptr[T any](p *T) unsafe.Pointer { return unsafe.Pointer(p) }

func itoa(n uint32) string { return strconv.FormatUint(uint64(n), 10) }
