package vmtest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"time"
)

// Screendump writes what the guest's screen shows to path as a PNG,
// through QEMU's machine protocol (QMP, "screendump" with format png,
// QEMU 7.1 or later). The guest must have been booted with Options.Screen.
func (vm *VM) Screendump(ctx context.Context, path string) error {
	if vm.qmp == "" {
		return errors.New("vmtest: no screen: boot with Options.Screen")
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", vm.qmp)
	if err != nil {
		return fmt.Errorf("QMP: %w", err)
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	} else {
		c.SetDeadline(time.Now().Add(30 * time.Second))
	}
	r := bufio.NewReader(c)
	// The greeting, then capabilities negotiation, then the command; each
	// command's answer is a line with "return" or "error" (events, lines
	// with "event", may come between).
	if _, err := r.ReadBytes('\n'); err != nil {
		return fmt.Errorf("QMP greeting: %w", err)
	}
	for _, cmd := range []any{
		map[string]any{"execute": "qmp_capabilities"},
		map[string]any{"execute": "screendump", "arguments": map[string]any{"filename": path, "format": "png"}},
	} {
		if err := json.NewEncoder(c).Encode(cmd); err != nil {
			return fmt.Errorf("QMP: %w", err)
		}
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return fmt.Errorf("QMP: %w", err)
			}
			var a struct {
				Return json.RawMessage `json:"return"`
				Error  *struct {
					Desc string `json:"desc"`
				} `json:"error"`
			}
			if json.Unmarshal(line, &a) != nil {
				return fmt.Errorf("QMP: not JSON: %.200q", line)
			}
			if a.Error != nil {
				return fmt.Errorf("QMP %v: %s", cmd, a.Error.Desc)
			}
			if a.Return != nil {
				break
			}
		}
	}
	return nil
}
