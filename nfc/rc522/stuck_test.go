package rc522_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"periph.io/x/conn/v3"
	"periph.io/x/conn/v3/physic"
	"periph.io/x/conn/v3/spi"

	"github.com/agentcall/acbridge/nfc/poll"
	"github.com/agentcall/acbridge/nfc/rc522"
	"github.com/agentcall/acbridge/nfc/rc522/rc522test"
)

// stuckChip is a misbehaving MFRC522 of our own: it passes the version
// check and wakes from its soft reset, then never raises an interrupt,
// as a chip with a dead oscillator or a half-connected MISO does.
type stuckChip struct {
	mu     sync.Mutex
	closed bool
}

func (s *stuckChip) String() string                                            { return "stuck" }
func (s *stuckChip) LimitSpeed(physic.Frequency) error                         { return nil }
func (s *stuckChip) Connect(physic.Frequency, spi.Mode, int) (spi.Conn, error) { return s, nil }
func (s *stuckChip) Duplex() conn.Duplex                                       { return conn.Full }
func (s *stuckChip) TxPackets([]spi.Packet) error                              { return errors.New("not used") }

func (s *stuckChip) Tx(w, r []byte) error {
	if len(r) == 2 && w[0] == 0x80|rc522test.RegVersion<<1 {
		r[1] = 0x92
	}
	return nil
}

func (s *stuckChip) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return fmt.Errorf("closed twice")
	}
	s.closed = true
	return nil
}

// A chip whose interrupts never come: Poll gives up after the driver's
// bound with ErrChip (well before the generous 10 s here), and a context
// cancelled meanwhile ends it sooner with the context's error.
func TestPollStuckChip(t *testing.T) {
	port := &stuckChip{}
	c, err := rc522.Open(context.Background(), &rc522.Options{OpenPort: func() (spi.PortCloser, error) { return port, nil }})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = c.Poll(context.Background())
	if !errors.Is(err, poll.ErrChip) || !errors.Is(err, rc522.ErrWiring) || !strings.Contains(err.Error(), "no interrupt") {
		t.Errorf("Poll: %v; want ErrChip, no interrupt", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Poll took %v", d)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	if _, err := c.Poll(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Poll with a cancelled context: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Error(err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := c.Poll(context.Background()); !errors.Is(err, poll.ErrChip) {
		t.Errorf("Poll after Close: %v", err)
	}
}

// resetRecorder stands in for the GPIO line on RST and records levels.
type resetRecorder struct {
	levels []int
	closed int
}

func (r *resetRecorder) SetValue(v int) error { r.levels = append(r.levels, v); return nil }
func (r *resetRecorder) Close() error         { r.closed++; return nil }

// With a reset line, Open pulses RST low then high before talking to the
// chip, and Close leaves it low (hard power-down: no field) and releases
// it; OpenFunc gives poll a fresh chip each time.
func TestResetLine(t *testing.T) {
	var s rc522test.Script
	s.Open(0x92)
	p := s.Playback()
	line := &resetRecorder{}
	open := rc522.OpenFunc(&rc522.Options{
		OpenPort:  rc522test.Port(p),
		OpenReset: func() (rc522.ResetLine, error) { return line, nil },
	})
	c, err := open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(line.levels) != "[0 1]" {
		t.Errorf("levels at Open %v, want [0 1]", line.levels)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(line.levels) != "[0 1 0]" || line.closed != 1 {
		t.Errorf("after Close: levels %v, closed %d times", line.levels, line.closed)
	}
	if _, err := rc522.OpenFunc(&rc522.Options{OpenPort: rc522test.Port(p)})(context.Background()); err == nil {
		t.Error("a second Connect on the same playback succeeded")
	}
}

// A missing spidev node: the error says to enable SPI; a name that is no
// spidev node is refused before anything is opened.
func TestOpenDevice(t *testing.T) {
	if _, err := os.Stat("/dev/spidev250.250"); err == nil {
		t.Skip("this machine has /dev/spidev250.250")
	}
	_, err := rc522.Open(context.Background(), &rc522.Options{Device: "/dev/spidev250.250"})
	if !errors.Is(err, poll.ErrChip) || !strings.Contains(err.Error(), "dtparam=spi=on") {
		t.Errorf("missing node: %v", err)
	}
	for _, dev := range []string{"/dev/spidev0", "spidev0.0", "/dev/spidev0.0/x", "/dev/spidev1234.0"} {
		if _, _, err := rc522.ParseDevice(dev); err == nil {
			t.Errorf("ParseDevice(%q) accepted", dev)
		}
	}
	if b, cs, err := rc522.ParseDevice("/dev/spidev1.2"); err != nil || b != 1 || cs != 2 {
		t.Errorf("ParseDevice(/dev/spidev1.2) = %d, %d, %v", b, cs, err)
	}
}
