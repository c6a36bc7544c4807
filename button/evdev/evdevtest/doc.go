// Package evdevtest writes Linux input events (the struct input_event of
// linux/input.h that package evdev reads) for tests that stand a FIFO in
// for a keypad. It never ships in the binary.
package evdevtest
