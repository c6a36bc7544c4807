// Package evdev reads buttons from a Linux input device: USB keypads, foot
// switches and arcade encoders, which the kernel presents as keyboards or
// joysticks on /dev/input/eventN.
//
// It reads struct input_event records (Documentation/input/input.rst,
// "Event interface"; include/uapi/linux/input.h) in pure Go, maps EV_KEY
// codes (Documentation/input/event-codes.rst) to controls, and follows the
// SYN_DROPPED rule of event-codes.rst: after an overflow, drop events up to
// the next SYN_REPORT and re-read the key state with EVIOCGKEY.
//
// The device is chosen by path (/dev/input/eventN, or a stable link under
// /dev/input/by-id) or by the name the kernel gives it
// (/sys/class/input/eventN/device/name, as `evtest` lists it). A FIFO works
// as a path too: tests and the daemon's integration tests feed real records
// through one. Written by hand because no maintained pure-Go evdev library
// covers this small need without cgo or a large dependency.
package evdev
