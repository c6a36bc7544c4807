package sim

import (
	"fmt"
	"time"

	"github.com/agentcall/acbridge/button/evdev"
	"github.com/agentcall/acbridge/nfc/vpcd"
)

// RandomUID is a random UID as a phone presents one (vpcd.RandomUID).
func RandomUID() []byte { return vpcd.RandomUID() }

// KeyEdge returns the input records the keypad FIFO gets when control's
// key goes down (or up) at at, as a keypad with a bouncing contact sends
// them: the contact chatters on the way, all within one write as a
// keypad's controller reports it within a scan.
func KeyEdge(control string, down bool, at time.Time) ([]byte, error) {
	var code uint16
	for _, k := range Keys {
		if k.Control == control {
			c, err := evdev.ParseKey(k.Key)
			if err != nil {
				return nil, err
			}
			code = c
		}
	}
	if code == 0 {
		return nil, fmt.Errorf("no simulated key for control %q", control)
	}
	b := evdev.AppendKey(nil, at, code, down)
	b = evdev.AppendKey(b, at, code, !down)
	return evdev.AppendKey(b, at, code, down), nil
}
