package term

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agentcall/acbridge/internal/testutil/ptytest"

	"go.uber.org/goleak"

	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/internal/testutil/poll"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type ev struct {
	control       string
	pressed, long bool
}

func readN(t *testing.T, s button.Source, n int) []ev {
	t.Helper()
	var out []ev
	for i := 0; i < n; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		e, err := s.Read(ctx)
		cancel()
		if err != nil {
			t.Fatalf("Read %d: %v (after %v)", i, err, out)
		}
		out = append(out, ev{e.Control, e.Pressed, e.Long})
	}
	return out
}

func same(t *testing.T, got, want []ev) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("event %d: got %v, want %v (all: %v)", i, got[i], want[i], got)
		}
	}
}

func TestDefaultKeys(t *testing.T) {
	s, err := New(strings.NewReader("s\np x\ntéCc\ntt"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	same(t, readN(t, s, 12), []ev{
		{button.Scan, true, false}, {button.Scan, false, false},
		{button.Photo, true, false}, {button.Photo, false, false},
		{button.Talk, true, false}, // toggle on
		{button.Cancel, true, false}, {button.Cancel, true, true}, {button.Cancel, false, false},
		{button.Cancel, true, false}, {button.Cancel, false, false},
		{button.Talk, false, false}, // toggle off
		{button.Talk, true, false},  // on again, then the input ends
	})
	same(t, readN(t, s, 1), []ev{{button.Talk, false, false}}) // released at EOF
	_, err = s.Read(context.Background())
	if !errors.Is(err, button.ErrDisconnected) || !strings.HasPrefix(err.Error(), "button/term: ") {
		t.Fatalf("Read at EOF: %v", err)
	}
}

func TestCustomKeys(t *testing.T) {
	keys := map[rune]Binding{'1': {button.Scan, Tap}, ' ': {button.Talk, Toggle}}
	s, err := New(strings.NewReader("1s "), &Options{Keys: keys})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	same(t, readN(t, s, 3), []ev{{button.Scan, true, false}, {button.Scan, false, false}, {button.Talk, true, false}})

	for _, bad := range []map[rune]Binding{
		{'x': {"launch", Tap}},
		{'x': {button.Scan, Action(9)}},
		{},
	} {
		if s, err := New(strings.NewReader(""), &Options{Keys: bad}); err == nil {
			s.Close()
			t.Errorf("New accepted %v", bad)
		} else if !strings.HasPrefix(err.Error(), "button/term: ") {
			t.Errorf("error %q lacks the package prefix", err)
		}
	}
	if got := Describe(DefaultKeys()); got != "C long cancel · c cancel · p photo · s scan · t talk (toggle)" {
		t.Errorf("Describe = %q", got)
	}
}

func nonblocking(t *testing.T, f *os.File) bool {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var fl uintptr
	rc.Control(func(fd uintptr) { fl, _, _ = syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0) })
	return fl&syscall.O_NONBLOCK != 0
}

func TestPipeAndClose(t *testing.T) {
	for _, blocking := range []bool{false, true} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		if blocking {
			// Like os.Stdin: a blocking descriptor outside Go's poller.
			r.Close()
			w.Close()
			var fds [2]int
			if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC); err != nil {
				t.Fatal(err)
			}
			r, w = os.NewFile(uintptr(fds[0]), "stdin-like"), os.NewFile(uintptr(fds[1]), "pipe-w")
		}
		before := nonblocking(t, r)
		s, err := New(r, &Options{Raw: true}) // Raw is ignored: not a terminal
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte("p"))
		same(t, readN(t, s, 2), []ev{{button.Photo, true, false}, {button.Photo, false, false}})

		errc := make(chan error, 1)
		go func() {
			_, err := s.Read(context.Background())
			errc <- err
		}()
		// Close while Read is blocked (an earlier Close is ErrClosed too,
		// so this only makes the test sharper).
		if !poll.Parked(5*time.Second, "(*Debouncer).Read") {
			t.Fatal("Read did not block")
		}
		done := make(chan struct{})
		go func() { s.Close(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("blocking=%v: Close hung on a pending read", blocking)
		}
		if err := <-errc; !errors.Is(err, button.ErrClosed) {
			t.Fatalf("Read: %v, want ErrClosed", err)
		}
		if err := s.Close(); err != nil {
			t.Fatalf("second Close: %v", err)
		}
		// The caller's file is still open, its mode as before.
		if after := nonblocking(t, r); after != before {
			t.Fatalf("blocking=%v: O_NONBLOCK changed from %v to %v", blocking, before, after)
		}
		w.Write([]byte("x"))
		var b [1]byte
		if n, err := r.Read(b[:]); n != 1 || err != nil {
			t.Fatalf("caller's pipe unusable after Close: %d, %v", n, err)
		}
		r.Close()
		w.Close()
	}
}

// openPTY returns a pseudo-terminal's controlling and terminal sides.
func openPTY(t *testing.T) (ptmx, tty *os.File) { return ptytest.Open(t) }

func lflag(t *testing.T, f *os.File) uint32 {
	t.Helper()
	rc, _ := f.SyscallConn()
	var tio syscall.Termios
	var e syscall.Errno
	rc.Control(func(fd uintptr) {
		_, _, e = syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TCGETS, uintptr(ptr(&tio)))
	})
	if e != 0 {
		t.Fatal(e)
	}
	return tio.Lflag
}

func TestRawTerminal(t *testing.T) {
	ptmx, tty := openPTY(t)
	before := lflag(t, tty)
	if before&syscall.ICANON == 0 {
		t.Fatal("a new pty should start in canonical mode")
	}

	// Canonical mode: a key without Enter does nothing yet.
	s, err := New(tty, nil)
	if err != nil {
		t.Fatal(err)
	}
	ptmx.Write([]byte("s"))
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	if e, err := s.Read(ctx); err == nil {
		t.Fatalf("canonical mode delivered %v before Enter", e)
	}
	cancel()
	ptmx.Write([]byte("\n"))
	same(t, readN(t, s, 2), []ev{{button.Scan, true, false}, {button.Scan, false, false}})
	s.Close()

	// Raw: the key acts at once, and is not echoed.
	s, err = New(tty, &Options{Raw: true})
	if err != nil {
		t.Fatal(err)
	}
	if lflag(t, tty)&(syscall.ICANON|syscall.ECHO) != 0 {
		t.Fatal("raw mode did not clear ICANON and ECHO")
	}
	if lflag(t, tty)&syscall.ISIG == 0 {
		t.Fatal("raw mode cleared ISIG: Ctrl-C would no longer stop the process")
	}
	ptmx.Write([]byte("p"))
	same(t, readN(t, s, 2), []ev{{button.Photo, true, false}, {button.Photo, false, false}})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if after := lflag(t, tty); after != before {
		t.Fatalf("terminal not restored: lflag %#x, was %#x", after, before)
	}
}

// Unbound is called once, at the first character that is no key, and
// not for Enter or spaces; the keys typed after it still act.
func TestUnboundToldOnce(t *testing.T) {
	var calls atomic.Int32
	s, err := New(strings.NewReader(" \n\ns\nhello there\np\n"), &Options{Unbound: func(string) { calls.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// "hello there" holds two t's (TALK toggles): read up to the last p's
	// release instead of counting events.
	var got []ev
	for {
		e := readN(t, s, 1)[0]
		got = append(got, e)
		if e.control == button.Photo && !e.pressed {
			break
		}
	}
	if got[0] != (ev{button.Scan, true, false}) {
		t.Errorf("first event %v, want SCAN pressed", got[0])
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("Unbound called %d times, want 1 (at the h of hello)", n)
	}
}
