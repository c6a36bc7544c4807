package keyboard

import (
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/agentcall/acbridge/nfc"
)

// open opens and grabs the device. Non-blocking, so that a path that is
// not a device yet (a FIFO without a writer) cannot hold the reader
// goroutine in open, out of Close's reach.
func (r *Reader) open() (*os.File, error) {
	path := r.opts.Path
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("nfc/keyboard: open %s: %w; the service user needs read access (udev rule or group input) and the unit DeviceAllow=char-input r", path, err)
	}
	if err := r.opts.grab(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("nfc/keyboard: grab %s: %w; without an exclusive grab the reader would type UIDs into the console or the kiosk page: stop the program holding it", path, err)
	}
	return f, nil
}

// noReader is the keyboard reader's "no reader": its own words, since
// nfc.ErrNoReader's speak of pcscd, yet errors.Is(err, nfc.ErrNoReader)
// for the callers that tell the person.
type noReader struct {
	msg   string
	cause error
}

func (e *noReader) Error() string   { return e.msg }
func (e *noReader) Unwrap() []error { return []error{nfc.ErrNoReader, e.cause} }

// gone records that the device failed (unplugged: ENODEV, or end of file):
// it is released, the status says so, and an armed window ends with that
// error rather than running on with no reader behind it. It returns what
// the device was, for await to tell a new device from the dead one.
func (r *Reader) gone(f *os.File, err error) os.FileInfo {
	was, _ := f.Stat()
	r.mu.Lock()
	if r.f == f {
		r.f = nil
	}
	r.mu.Unlock()
	f.Close()
	r.log.Error("nfc/keyboard: the reader is gone; waiting for it to come back", "path", r.opts.Path, "err", err)
	st := nfc.Status{State: nfc.StateNoReader, Err: &noReader{cause: err, msg: fmt.Sprintf(
		"nfc/keyboard: the reader %s is gone (%v): plug it back in; acbridge opens it again when it reappears", r.opts.Path, err)}}
	r.setStatus(st)
	r.deliver(nfc.Scan{Reader: r.opts.Path, Err: st.Err})
	return was
}

// await looks for the device every Retry until it is back, and reports
// false if the reader was closed meanwhile. The node that failed is not
// reopened: only one that reappeared (a new inode, as udev makes on
// replug) is, so a device that keeps failing is not retried in a loop.
func (r *Reader) await(was os.FileInfo) bool {
	t := time.NewTimer(r.opts.Retry)
	defer t.Stop()
	vanished := was == nil
	var last string
	for {
		select {
		case <-r.closing:
			return false
		case <-t.C:
		}
		t.Reset(r.opts.Retry)
		f, ok := r.look(was, &vanished, &last)
		if r.opts.looked != nil {
			r.opts.looked()
		}
		if !ok {
			continue
		}
		r.mu.Lock()
		select {
		case <-r.closing:
			r.mu.Unlock()
			f.Close()
			return false
		default:
		}
		r.f = f
		r.mu.Unlock()
		r.log.Info("nfc/keyboard: the reader is back; its keystrokes reach nothing else", "path", r.opts.Path)
		r.setStatus(nfc.Status{State: nfc.StateReady, Reader: r.opts.Path})
		return true
	}
}

// look opens the device if it is back: a node that vanished and
// reappeared, or one that differs from was.
func (r *Reader) look(was os.FileInfo, vanished *bool, last *string) (*os.File, bool) {
	fi, err := os.Stat(r.opts.Path)
	if err != nil {
		*vanished = true
		return nil, false
	}
	if !*vanished && sameNode(was, fi) {
		return nil, false
	}
	f, err := r.open()
	if err != nil {
		if err.Error() != *last { // once per distinct reason, not per Retry
			*last = err.Error()
			r.log.Warn("nfc/keyboard: the reader is back but cannot be used", "err", err)
			r.setStatus(nfc.Status{State: nfc.StateNoReader, Err: &noReader{msg: err.Error(), cause: err}})
		}
		return nil, false
	}
	return f, true
}

// sameNode reports whether a and b are one node, unchanged. The inode
// alone is not enough: a filesystem may give a new node the number of the
// one just removed; the change time tells them apart.
func sameNode(a, b os.FileInfo) bool {
	sa, ok1 := a.Sys().(*syscall.Stat_t)
	sb, ok2 := b.Sys().(*syscall.Stat_t)
	return os.SameFile(a, b) && ok1 && ok2 && sa.Ctim == sb.Ctim
}
