package evdev

import (
	"encoding/binary"
	"time"
	"unsafe"
)

// Event types and codes used here (linux/input-event-codes.h).
const (
	EvSyn      = 0x00
	EvKey      = 0x01
	SynReport  = 0
	SynDropped = 3
)

// longSize is sizeof(long) for this process, which is the width of both
// fields of the record's time: struct input_event starts with two longs
// (struct timeval, or __sec/__usec on 32-bit with 64-bit time_t). Go's
// uintptr has the width of C long on every Linux port.
const longSize = int(unsafe.Sizeof(uintptr(0)))

// RecordSize is the size of struct input_event for this process: 24 bytes on
// 64-bit, 16 on 32-bit (armhf, i386). The kernel writes the layout of the
// reading process, including 32-bit processes on a 64-bit kernel.
const RecordSize = 2*longSize + 8

// InputEvent is one struct input_event.
type InputEvent struct {
	Time  time.Time
	Type  uint16
	Code  uint16
	Value int32
}

// AppendBinary appends the record in this process's native layout, as the
// kernel would write it.
func (e InputEvent) AppendBinary(b []byte) ([]byte, error) {
	sec, usec := e.Time.Unix(), int64(e.Time.Nanosecond()/1000)
	if e.Time.IsZero() {
		sec, usec = 0, 0
	}
	ne := binary.NativeEndian
	if longSize == 8 {
		b = ne.AppendUint64(b, uint64(sec))
		b = ne.AppendUint64(b, uint64(usec))
	} else {
		b = ne.AppendUint32(b, uint32(sec))
		b = ne.AppendUint32(b, uint32(usec))
	}
	b = ne.AppendUint16(b, e.Type)
	b = ne.AppendUint16(b, e.Code)
	return ne.AppendUint32(b, uint32(e.Value)), nil
}

// decode reads one record of RecordSize bytes.
func decode(b []byte) InputEvent {
	ne := binary.NativeEndian
	var sec, usec int64
	if longSize == 8 {
		sec, usec = int64(ne.Uint64(b)), int64(ne.Uint64(b[8:]))
	} else {
		// __kernel_ulong_t: unsigned, so 32-bit seconds last until 2106.
		sec, usec = int64(ne.Uint32(b)), int64(ne.Uint32(b[4:]))
	}
	t := b[2*longSize:]
	return InputEvent{
		Time:  time.Unix(sec, usec*1000),
		Type:  ne.Uint16(t),
		Code:  ne.Uint16(t[2:]),
		Value: int32(ne.Uint32(t[4:])),
	}
}

// AppendKey appends what a keyboard sends for one key change: an EV_KEY
// record (value 1 press, 0 release) and the SYN_REPORT that ends the packet.
// Tests write these into a FIFO configured as the device path.
func AppendKey(b []byte, at time.Time, code uint16, pressed bool) []byte {
	v := int32(0)
	if pressed {
		v = 1
	}
	b, _ = InputEvent{Time: at, Type: EvKey, Code: code, Value: v}.AppendBinary(b)
	b, _ = InputEvent{Time: at, Type: EvSyn, Code: SynReport}.AppendBinary(b)
	return b
}
