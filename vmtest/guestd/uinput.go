package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// uinput ioctls (linux/uinput.h) and the codes a keyboard-wedge RFID reader
// sends: digits then Enter (linux/input-event-codes.h).
const (
	uiSetEvBit  = 0x40045564
	uiSetKeyBit = 0x40045565
	uiDevCreate = 0x5501
	evSyn       = 0
	evKey       = 1
	keyEnter    = 28
)

// keyCode maps a digit to its key: KEY_1..KEY_9 are 2..10, KEY_0 is 11.
func keyCode(r rune) (uint16, bool) {
	switch {
	case r == '0':
		return 11, true
	case r >= '1' && r <= '9':
		return uint16(r-'1') + 2, true
	}
	return 0, false
}

// keyboard is one uinput device that looks like a USB keyboard-wedge reader.
type keyboard struct {
	mu sync.Mutex
	f  *os.File
}

func (k *keyboard) create() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.f != nil {
		return nil
	}
	f, err := os.OpenFile("/dev/uinput", os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	fd := int(f.Fd())
	if err := unix.IoctlSetInt(fd, uiSetEvBit, evKey); err != nil {
		f.Close()
		return fmt.Errorf("UI_SET_EVBIT: %w", err)
	}
	for code := 2; code <= 11; code++ {
		if err := unix.IoctlSetInt(fd, uiSetKeyBit, code); err != nil {
			f.Close()
			return fmt.Errorf("UI_SET_KEYBIT: %w", err)
		}
	}
	if err := unix.IoctlSetInt(fd, uiSetKeyBit, keyEnter); err != nil {
		f.Close()
		return err
	}
	// struct uinput_user_dev: name[80], input_id (bustype, vendor,
	// product, version), ff_effects_max, then four int32[64] axis arrays.
	dev := make([]byte, 80+8+4+4*64*4)
	copy(dev, "acbridge-vm RFID Reader")
	binary.LittleEndian.PutUint16(dev[80:], 0x03) // BUS_USB
	binary.LittleEndian.PutUint16(dev[82:], 0xffff)
	binary.LittleEndian.PutUint16(dev[84:], 0x0035)
	binary.LittleEndian.PutUint16(dev[86:], 1)
	if _, err := f.Write(dev); err != nil {
		f.Close()
		return err
	}
	if _, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uiDevCreate, 0); errno != 0 {
		f.Close()
		return fmt.Errorf("UI_DEV_CREATE: %w", errno)
	}
	k.f = f
	return nil
}

// typeText types digits then Enter, as the reader does for one tag.
func (k *keyboard) typeText(s string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.f == nil {
		return errors.New("uinput-create first")
	}
	for _, r := range s {
		code, ok := keyCode(r)
		if !ok {
			return fmt.Errorf("only digits can be typed, not %q", r)
		}
		if err := k.key(code); err != nil {
			return err
		}
	}
	return k.key(keyEnter)
}

func (k *keyboard) key(code uint16) error {
	for _, v := range []int32{1, 0} {
		if err := k.event(evKey, code, v); err != nil {
			return err
		}
		if err := k.event(evSyn, 0, 0); err != nil {
			return err
		}
	}
	return nil
}

func (k *keyboard) event(typ, code uint16, value int32) error {
	// struct input_event on 64-bit: timeval (16 bytes), type, code, value.
	var ev [24]byte
	now := time.Now()
	binary.LittleEndian.PutUint64(ev[0:], uint64(now.Unix()))
	binary.LittleEndian.PutUint64(ev[8:], uint64(now.Nanosecond()/1000))
	binary.LittleEndian.PutUint16(ev[16:], typ)
	binary.LittleEndian.PutUint16(ev[18:], code)
	binary.LittleEndian.PutUint32(ev[20:], uint32(value))
	_, err := k.f.Write(ev[:])
	return err
}
