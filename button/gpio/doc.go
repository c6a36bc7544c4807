// Package gpio reads buttons from GPIO lines and drives the "armed" LED,
// through the Linux GPIO character device (/dev/gpiochipN; uAPI v2 of
// Documentation/userspace-api/gpio/chardev.rst) with
// github.com/warthog618/go-gpiocdev.
//
// A button is usually wired between the line and ground, with the line's
// pull-up enabled: Line{ActiveLow: true, Bias: BiasPullUp}. Edges from the
// kernel are reported to a button.Debouncer, as for every other backend;
// Line.KernelDebounce additionally asks the kernel to filter glitches on long
// or noisy wires (Linux 5.10 or later).
//
// GPIO lines have no software stand-in on a developer machine or in CI, so
// what is tested without hardware is everything above the kernel: the
// translation of Line and IndicatorOptions into go-gpiocdev options, the
// mapping of edges to events, the blinking, and the errors that tell the
// operator how to fix permissions. The hardware path is covered by the
// acceptance checklist on a Raspberry Pi.
package gpio
