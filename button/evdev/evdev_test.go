package evdev

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"go.uber.org/goleak"

	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/internal/testutil/fifotest"
	"github.com/agentcall/acbridge/internal/testutil/poll"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var at = time.Date(2026, 1, 2, 3, 4, 5, 678000, time.UTC)

var keys = map[uint16]string{
	30:  button.Scan,   // KEY_A
	28:  button.Scan,   // KEY_ENTER
	25:  button.Photo,  // KEY_P
	20:  button.Talk,   // KEY_T
	288: button.Cancel, // BTN_TRIGGER
}

// fifo makes a FIFO and opens its write end without blocking (O_RDWR), so
// that Open's read-only open finds a writer.
func fifo(t *testing.T, dir, name string) (string, *os.File) {
	t.Helper()
	return fifotest.Make(t, dir, name)
}

func read(t *testing.T, s button.Source) button.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ev, err := s.Read(ctx)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return ev
}

func expect(t *testing.T, s button.Source, control string, pressed bool) {
	t.Helper()
	ev := read(t, s)
	if ev.Control != control || ev.Pressed != pressed || ev.Long {
		t.Fatalf("got %v, want %s pressed=%v", ev, control, pressed)
	}
}

func write(t *testing.T, w *os.File, b []byte) {
	t.Helper()
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
}

func record(typ, code uint16, value int32) []byte {
	b, _ := InputEvent{Time: at, Type: typ, Code: code, Value: value}.AppendBinary(nil)
	return b
}

// openFIFO opens a Source on a fresh FIFO with debouncing off, so the
// event sequence does not depend on timing.
func openFIFO(t *testing.T, o Options) (*Source, *os.File) {
	t.Helper()
	path, w := fifo(t, t.TempDir(), "event7")
	o.Path = path
	if o.Keys == nil {
		o.Keys = keys
	}
	if o.Button.Debounce == 0 {
		o.Button.Debounce = -1
	}
	s, err := Open(&o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, w
}

func TestRecordLayout(t *testing.T) {
	// The kernel's struct input_event for this process: two C longs, then
	// u16 type, u16 code, s32 value.
	type cInputEvent struct {
		sec, usec uintptr
		typ, code uint16
		value     int32
	}
	if RecordSize != int(unsafe.Sizeof(cInputEvent{})) {
		t.Fatalf("RecordSize %d, C layout %d", RecordSize, unsafe.Sizeof(cInputEvent{}))
	}
	if want := map[uintptr]int{4: 16, 8: 24}[unsafe.Sizeof(uintptr(0))]; RecordSize != want {
		t.Fatalf("RecordSize %d, want %d", RecordSize, want)
	}
	in := InputEvent{Time: at, Type: EvKey, Code: 0x120, Value: -5}
	b, _ := in.AppendBinary(nil)
	if len(b) != RecordSize {
		t.Fatalf("encoded %d bytes", len(b))
	}
	// Field by field through the C layout, not through decode.
	c := (*cInputEvent)(unsafe.Pointer(&b[0]))
	if int64(c.sec) != at.Unix() || int64(c.usec) != 678 || c.typ != EvKey || c.code != 0x120 || c.value != -5 {
		t.Fatalf("layout mismatch: %+v", *c)
	}
	out := decode(b)
	if !out.Time.Equal(at) || out.Type != in.Type || out.Code != in.Code || out.Value != in.Value {
		t.Fatalf("round trip: %+v != %+v", out, in)
	}
}

func TestKeysThroughPipe(t *testing.T) {
	// An os.Pipe read end is the reader's *os.File, exactly as a device node.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	dir := t.TempDir()
	link := filepath.Join(dir, "event9")
	// /proc/self/fd/N opens the pipe itself: Open's own path.
	if err := os.Symlink("/proc/self/fd/"+strconv.Itoa(int(r.Fd())), link); err != nil {
		t.Fatal(err)
	}
	s, err := Open(&Options{Path: link, Keys: keys, Button: button.Options{Debounce: -1}})
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	var b []byte
	b = AppendKey(b, at, 30, true)          // KEY_A: scan
	b = append(b, record(4, 4, 0x70004)...) // EV_MSC scan code, ignored
	b = append(b, record(EvKey, 30, 2)...)  // autorepeat, ignored
	b = append(b, record(EvKey, 16, 1)...)  // KEY_Q, unmapped
	b = AppendKey(b, at, 30, false)         // scan released
	b = AppendKey(b, at, 25, true)          // photo
	b = AppendKey(b, at, 25, false)
	b = AppendKey(b, at, 288, true) // BTN_TRIGGER: cancel
	// Split a record across writes: the reader must reassemble it. The
	// events before the split show it read the first part alone.
	write(t, w, b[:len(b)-5])
	expect(t, s, button.Scan, true)
	expect(t, s, button.Scan, false)
	expect(t, s, button.Photo, true)
	expect(t, s, button.Photo, false)
	write(t, w, b[len(b)-5:])
	expect(t, s, button.Cancel, true)
}

func TestTwoKeysOneControl(t *testing.T) {
	s, w := openFIFO(t, Options{})
	var b []byte
	b = AppendKey(b, at, 30, true)  // KEY_A: scan pressed
	b = AppendKey(b, at, 28, true)  // KEY_ENTER: scan still
	b = AppendKey(b, at, 30, false) // still held through ENTER
	b = AppendKey(b, at, 28, false) // released
	write(t, w, b)
	expect(t, s, button.Scan, true)
	expect(t, s, button.Scan, false)
}

func TestDebouncedTapThroughFIFO(t *testing.T) {
	// Default debouncing on the real clock: a keypad's down and up well
	// inside the debounce period (here back to back) still give a press
	// and a release.
	s, w := openFIFO(t, Options{Button: button.Options{Debounce: button.DefaultDebounce}})
	write(t, w, AppendKey(nil, at, 25, true))
	write(t, w, AppendKey(nil, at, 25, false))
	expect(t, s, button.Photo, true)
	expect(t, s, button.Photo, false)
}

func TestLongCancelThroughFIFO(t *testing.T) {
	s, w := openFIFO(t, Options{Button: button.Options{LongPress: 20 * time.Millisecond}})
	write(t, w, AppendKey(nil, at, 288, true))
	expect(t, s, button.Cancel, true)
	if ev := read(t, s); !ev.Long || !ev.Pressed || ev.Control != button.Cancel {
		t.Fatalf("got %v, want cancel long press", ev)
	}
	write(t, w, AppendKey(nil, at, 288, false))
	expect(t, s, button.Cancel, false)
}

func TestSynDropped(t *testing.T) {
	s, w := openFIFO(t, Options{})
	var b []byte
	b = AppendKey(b, at, 30, true)                 // scan pressed
	b = append(b, record(EvSyn, SynDropped, 0)...) // overflow
	b = append(b, record(EvKey, 25, 1)...)         // part of the broken packet: dropped
	b = append(b, record(EvSyn, SynReport, 0)...)  // resync: a FIFO has no key state: all released
	b = AppendKey(b, at, 20, true)                 // talk, after the resync
	write(t, w, b)
	expect(t, s, button.Scan, true)
	expect(t, s, button.Scan, false)
	expect(t, s, button.Talk, true)
}

func TestWriterGoneIsDisconnected(t *testing.T) {
	s, w := openFIFO(t, Options{})
	write(t, w, AppendKey(nil, at, 20, true))
	w.Close()
	expect(t, s, button.Talk, true)
	expect(t, s, button.Talk, false) // released because the device is gone
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := s.Read(ctx)
	if !errors.Is(err, button.ErrDisconnected) || !strings.HasPrefix(err.Error(), "button/evdev: ") {
		t.Fatalf("Read: %v, want button/evdev: … ErrDisconnected", err)
	}
}

func TestTruncatedRecord(t *testing.T) {
	s, w := openFIFO(t, Options{})
	write(t, w, AppendKey(nil, at, 20, true)[:RecordSize-3])
	w.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := s.Read(ctx)
	if !errors.Is(err, button.ErrDisconnected) || !strings.Contains(err.Error(), "inside an input_event record") {
		t.Fatalf("Read: %v", err)
	}
}

func TestCloseUnblocksRead(t *testing.T) {
	s, _ := openFIFO(t, Options{})
	errc := make(chan error, 1)
	go func() {
		_, err := s.Read(context.Background())
		errc <- err
	}()
	// Close while Read is blocked (an earlier Close is ErrClosed too, so
	// this only makes the test sharper).
	if !poll.Parked(5*time.Second, "(*Debouncer).Read") {
		t.Fatal("Read did not block")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if !errors.Is(err, button.ErrClosed) {
			t.Fatalf("Read: %v, want ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not unblock Read")
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestOpenByName(t *testing.T) {
	root := t.TempDir()
	sys, dev := filepath.Join(root, "sys"), filepath.Join(root, "dev")
	for node, name := range map[string]string{
		"event0":  "AT Translated Set 2 keyboard\n",
		"event12": "DragonRise Inc.   Generic   USB  Joystick  \n",
		"event3":  "DragonRise Inc.   Generic   USB  Joystick  \n",
		"mouse0":  "not an event node\n",
	} {
		if err := os.MkdirAll(filepath.Join(sys, node, "device"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sys, node, "device", "name"), []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(dev, 0o755); err != nil {
		t.Fatal(err)
	}
	_, w := fifo(t, dev, "event3") // the lowest-numbered of the two namesakes
	s, err := Open(&Options{
		Name: "DragonRise Inc.   Generic   USB  Joystick", Keys: keys,
		Button: button.Options{Debounce: -1}, sysDir: sys, devDir: dev,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Path() != filepath.Join(dev, "event3") {
		t.Fatalf("opened %s", s.Path())
	}
	write(t, w, AppendKey(nil, at, 288, true))
	expect(t, s, button.Cancel, true)

	_, err = Open(&Options{Name: "Arcade", Keys: keys, sysDir: sys, devDir: dev})
	if err == nil || !strings.Contains(err.Error(), `"AT Translated Set 2 keyboard"`) {
		t.Fatalf("unknown name: %v, want the list of devices present", err)
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		o    *Options
		want string
	}{
		{"nil", nil, "no options"},
		{"no keys", &Options{Path: "/dev/null"}, "no keys"},
		{"bad control", &Options{Path: "/dev/null", Keys: map[uint16]string{30: "launch"}}, `KEY_A: button: unknown control "launch"`},
		{"code too high", &Options{Path: "/dev/null", Keys: map[uint16]string{0x300: button.Scan}}, "above KEY_MAX"},
		{"no device", &Options{Keys: keys}, "neither a device path nor a device name"},
		{"missing", &Options{Path: filepath.Join(dir, "event99"), Keys: keys}, "is the keypad plugged in"},
		{"grab FIFO", &Options{Keys: keys, Grab: true}, "not an input event device"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "grab FIFO" {
				tc.o.Path, _ = fifo(t, dir, "grab")
			}
			s, err := Open(tc.o)
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			if !strings.HasPrefix(err.Error(), "button/evdev: ") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestPermissionErrorTellsTheFix(t *testing.T) {
	// Root (as in CI) is never refused by file modes, so the mapping is
	// checked on the error os.Open returns for EACCES and for the EPERM of
	// a systemd device policy.
	for _, errno := range []syscall.Errno{syscall.EACCES, syscall.EPERM} {
		err := openError("/dev/input/event3", &fs.PathError{Op: "open", Path: "/dev/input/event3", Err: errno})
		for _, s := range []string{"group input", "70-acbridge.rules", "DeviceAllow=char-input"} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%v: %q lacks %q", errno, err, s)
			}
		}
		if !errors.Is(err, fs.ErrPermission) {
			t.Errorf("%v: not wrapped", errno)
		}
	}
}

func TestParseKey(t *testing.T) {
	for in, want := range map[string]uint16{
		"KEY_A": 30, "key_enter": 28, " KEY_F12 ": 88, "KEY_SPACE": 57, "BTN_0": 0x100,
		"BTN_TRIGGER": 0x120, "BTN_SOUTH": 0x130, "BTN_A": 0x130, "KEY_KPENTER": 96,
		"28": 28, "0x1c": 28, "767": 767,
	} {
		got, err := ParseKey(in)
		if err != nil || got != want {
			t.Errorf("ParseKey(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "KEY_NOPE", "768", "0x300", "-1", "1e3", strings.Repeat("K", 300)} {
		if _, err := ParseKey(in); err == nil {
			t.Errorf("ParseKey(%q) succeeded", in)
		} else if len(err.Error()) > 300 {
			t.Errorf("ParseKey(%q): unbounded error", in)
		}
	}
	if KeyName(30) != "KEY_A" || KeyName(0x130) != "BTN_SOUTH" || KeyName(0x2fe) != "0x2fe" {
		t.Errorf("KeyName: %s %s %s", KeyName(30), KeyName(0x130), KeyName(0x2fe))
	}
	for _, k := range keyTable {
		if k.code > MaxKey {
			t.Errorf("%s = %#x above KEY_MAX", k.name, k.code)
		}
	}
}
