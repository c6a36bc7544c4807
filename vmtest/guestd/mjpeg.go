package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image/jpeg"
	"os"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// V4L2 (linux/videodev2.h) as v4l2loopback's output side takes it: struct
// v4l2_format is 208 bytes on amd64 (its union is 8-aligned, after the
// 4-byte type), so VIDIOC_S_FMT is _IOWR('V', 5, 208 bytes).
const (
	vidiocSFmt      = 0xc0d05605
	bufTypeOutput   = 2
	fieldNone       = 1
	pixFmtMJPEG     = 'M' | 'J'<<8 | 'P'<<16 | 'G'<<24
	v4l2FormatSize  = 208
	pixFormatOffset = 8
	feedInterval    = time.Second / 15
)

// feedMJPEG makes dev (a v4l2loopback node) an MJPEG camera of the JPEG in
// file's size and writes the file to it as one frame per write(), at 15
// frames a second until killed: the way a program feeding a loopback
// camera does. Every every-th frame (none when 0) is broken as a UVC
// camera's frame cut short on the bus: its first half, then an EOI. It
// reports on stdout once the first frame is in, since the capture side is
// a camera (exclusive_caps) only from then on.
func feedMJPEG(dev, file string, every int) error {
	frame, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	broken := append(append([]byte{}, frame[:len(frame)/2]...), 0xFF, 0xD9)
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(frame))
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	f, err := os.OpenFile(dev, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	var vf [v4l2FormatSize]byte
	le := binary.LittleEndian
	le.PutUint32(vf[0:], bufTypeOutput)
	pix := vf[pixFormatOffset:]
	le.PutUint32(pix[0:], uint32(cfg.Width))
	le.PutUint32(pix[4:], uint32(cfg.Height))
	le.PutUint32(pix[8:], pixFmtMJPEG)
	le.PutUint32(pix[12:], fieldNone)
	if _, _, errno := unix.Syscall(unix.SYS_IOCTL, f.Fd(), vidiocSFmt, uintptr(unsafe.Pointer(&vf[0]))); errno != 0 {
		return fmt.Errorf("VIDIOC_S_FMT MJPEG %dx%d on %s: %w", cfg.Width, cfg.Height, dev, errno)
	}
	if got := le.Uint32(pix[8:]); got != pixFmtMJPEG {
		return fmt.Errorf("%s took format %#x, not MJPEG", dev, got)
	}
	tick := time.NewTicker(feedInterval)
	defer tick.Stop()
	for n := 0; ; n++ {
		b := frame
		if every > 0 && n%every == 0 {
			b = broken
		}
		if _, err := f.Write(b); err != nil {
			return fmt.Errorf("frame %d: %w", n, err)
		}
		if n == 0 {
			fmt.Printf("feeding %s: MJPEG %dx%d, %d bytes a frame, every %d broken\n", dev, cfg.Width, cfg.Height, len(frame), every)
		}
		<-tick.C
	}
}
