package jpeg

// The cgo binding to libjpeg-turbo is hand-written (turbo.c) because no Go
// binding does what this package measured it needs: github.com/pixiv/go-libjpeg
// and its forks offer neither progressive output, nor caller-supplied
// quantization tables, nor bounded memory for progressive input, and they
// turn libjpeg errors into Go panics unwinding through C frames. Each call
// into C does one whole decode or encode, so cgo overhead stays negligible.
// Debian/Raspberry Pi OS: libjpeg62-turbo-dev at build time, libjpeg62-turbo
// at run time.

/*
#cgo LDFLAGS: -ljpeg -lm
#include <stdlib.h>
#include "turbo.h"
*/
import "C"

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"unsafe"
)

// decodeOpts steers one libjpeg decode.
type decodeOpts struct {
	k         int // DCT-domain scale k/8, 1..8
	maxErr    int // progressive early stop tolerance, dequantized DCT units; <0 decodes every scan
	maxScans  int
	maxPixels int
}

// decodeInfo reports what a decode did; it never holds image bytes.
type decodeInfo struct {
	width, height int
	progressive   bool
	scans         int
	warnings      int
}

// errUnsupportedColor marks JPEGs that are neither Y'CbCr nor grayscale
// (Adobe RGB/CMYK/YCCK); the caller falls back to image/jpeg for those.
var errUnsupportedColor = fmt.Errorf("jpeg: unsupported JPEG color space")

// decodeTurbo decodes data scaled by opts.k/8 into planes. data stays owned
// by the caller; the frame's planes are C memory, valid until its release.
func decodeTurbo(data []byte, opts decodeOpts) (*frame, decodeInfo, error) {
	if len(data) == 0 {
		return nil, decodeInfo{}, fmt.Errorf("%w: empty input", ErrBadInput)
	}
	return decodeTurboFrom(unsafe.Pointer(&data[0]), len(data), -1, opts)
}

// decodeTurboFile decodes the JPEG file f from its start, streaming it.
func decodeTurboFile(f *os.File, opts decodeOpts) (*frame, decodeInfo, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, decodeInfo{}, fmt.Errorf("jpeg: %w", err)
	}
	fr, info, err := decodeTurboFrom(nil, 0, int(f.Fd()), opts)
	runtime.KeepAlive(f)
	return fr, info, err
}

func decodeTurboFrom(buf unsafe.Pointer, n, fd int, opts decodeOpts) (*frame, decodeInfo, error) {
	var d C.acb_dec
	d.k = C.int(opts.k)
	d.max_err = C.int(opts.maxErr)
	d.max_scans = C.int(opts.maxScans)
	d.max_pixels = C.long(opts.maxPixels)
	rc := C.acb_decode((*C.uchar)(buf), C.size_t(n), C.int(fd), &d)
	info := decodeInfo{
		width: int(d.width), height: int(d.height),
		progressive: d.progressive != 0, scans: int(d.scans), warnings: int(d.warnings),
	}
	if rc != 0 {
		msg := C.GoString(&d.msg[0])
		switch rc {
		case -2:
			return nil, info, fmt.Errorf("%w: %s", errUnsupportedColor, msg)
		case -3:
			return nil, info, fmt.Errorf("%w: %s", ErrInputTooLarge, msg)
		}
		return nil, info, fmt.Errorf("%w: libjpeg: %s", ErrBadInput, msg)
	}
	// The planes stay in libjpeg's C memory until the caller releases the
	// frame: copying them into Go memory cost a second pass over fresh
	// pages, a fifth of a wallpaper's page faults (bench/photo.sh).
	f := &frame{n: int(d.ncomp)}
	for c := 0; c < f.n; c++ {
		w, h, stride := int(d.pw[c]), int(d.ph[c]), int(d.stride[c])
		f.p[c] = plane{w: w, h: h, stride: stride, pix: unsafe.Slice((*byte)(unsafe.Pointer(d.plane[c])), stride*h)}
	}
	region, regionLen := d.region, d.region_len
	f.free = func() {
		C.acb_region_free(region, regionLen)
	}
	f.w, f.h = f.p[0].w, f.p[0].h
	return f, info, nil
}

// encodeTurbo compresses an MCU-padded frame (newEncodeFrame) with the
// given quantization tables and optimized Huffman tables; the output has no
// APPn or COM segment. Encode writes baseline: with its flattened tables
// libjpeg's progressive script measured no smaller (up to 3% larger) and
// twice as slow. Tests use progressive to make progressive inputs.
func encodeTurbo(f *frame, qt *[2][64]uint16, progressive bool) ([]byte, error) {
	var e C.acb_enc
	e.width = C.int(f.w)
	e.height = C.int(f.h)
	e.ncomp = C.int(f.n)
	e.hs, e.vs = C.int(max(f.hs, 1)), C.int(max(f.vs, 1))
	for t := 0; t < 2; t++ {
		for i := 0; i < 64; i++ {
			e.qt[t][i] = C.ushort(qt[t][i])
		}
	}
	if progressive {
		e.progressive = 1
	}
	e.baseline_tables = 1
	var ptr [3]*C.uchar
	for c := 0; c < f.n; c++ {
		e.stride[c] = C.int(f.p[c].stride)
		ptr[c] = (*C.uchar)(unsafe.Pointer(&f.p[c].pix[0]))
	}
	if f.n == 1 {
		ptr[1], ptr[2] = ptr[0], ptr[0]
	}
	if C.acb_encode(&e, ptr[0], ptr[1], ptr[2]) != 0 {
		return nil, fmt.Errorf("jpeg: libjpeg encode: %s", C.GoString(&e.msg[0]))
	}
	defer C.acb_enc_free(&e)
	return C.GoBytes(unsafe.Pointer(e.out), C.int(e.out_len)), nil
}
