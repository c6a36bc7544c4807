// Package button turns physical controls into named press and release events.
//
// A kiosk has four controls (docs/architecture.md, principle 3: the person initiates
// every collection through a visible control): Scan arms the NFC reader,
// Photo captures a picture, Talk is push-to-talk, and a long press of Cancel
// cancels the agent's run. Every backend delivers them through one
// interface, Source:
//
//   - button/gpio: GPIO lines through the Linux GPIO character device
//     (Documentation/userspace-api/gpio/chardev.rst) with
//     github.com/warthog618/go-gpiocdev, plus an armed-LED Indicator;
//   - button/evdev: keys of USB keypads and arcade encoders, read as
//     input_event records from /dev/input/event* in pure Go
//     (Documentation/input/input.rst, event-codes.rst);
//   - button/term: keys typed on a terminal, for the demo and a technician;
//   - button/buttontest: a fake Source, Indicator and Clock for tests.
//
// Backends report raw level changes to a Debouncer, which owns what is common
// to all of them: debouncing, the long-press timer for Cancel, a bounded
// queue, and the Read/Close lifecycle (Close is safe to call twice and
// unblocks every pending Read).
package button
