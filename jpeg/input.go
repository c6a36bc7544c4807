package jpeg

import (
	"bytes"
	"errors"
	"fmt"
	stdjpeg "image/jpeg"
	"image/png"
	"io"
	"os"
)

// Decoding choices for JPEG inputs, measured with bench/photo.sh:
const (
	// progressiveMaxErr: a progressive decode ends once every coefficient
	// the downscale uses is known to within this many dequantized DCT
	// units (≈ 1/8 of a grey level each at the block's DC).
	progressiveMaxErr = 8
	maxScans          = 100 // real encoders write at most a few dozen
)

// streamAbove: JPEG files larger than this are streamed into libjpeg
// rather than read whole, which keeps a 16 MB photo out of the peak RSS.
const (
	streamAbove = 2 << 20
	headBytes   = 1 << 20 // enough for any real file's headers and EXIF
)

// EncodeFile encodes the JPEG, PNG or YUV4MPEG2 file at path. See
// EncodeReader.
func EncodeFile(path string, opts *Options) (*Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("jpeg: %w", err)
	}
	defer f.Close()
	if res, ok, err := encodeLargeJPEG(f, opts); ok {
		return res, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("jpeg: %w", err)
	}
	return EncodeReader(f, opts)
}

// encodeLargeJPEG streams a large JPEG file; ok is false when f is not one
// (or its headers are unusually long) and the caller should read it whole.
func encodeLargeJPEG(f *os.File, opts *Options) (*Result, bool, error) {
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() <= streamAbove {
		return nil, false, nil
	}
	o := opts.withDefaults()
	if fi.Size() > o.MaxInputBytes {
		return nil, true, fmt.Errorf("%w: %d bytes, limit %d", ErrInputTooLarge, fi.Size(), o.MaxInputBytes)
	}
	head := make([]byte, headBytes)
	n, err := f.ReadAt(head, 0)
	if n < 3 || (err != nil && err != io.EOF) || !bytes.HasPrefix(head, []byte{0xFF, 0xD8, 0xFF}) {
		return nil, false, nil
	}
	hdr, err := scanJPEG(head[:n])
	if err != nil {
		return nil, false, nil
	}
	start := o.Now()
	fr, err := decodeJPEGWith(hdr, &o, func(d decodeOpts) (*frame, decodeInfo, error) { return decodeTurboFile(f, d) },
		func() ([]byte, error) {
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				return nil, err
			}
			return readBounded(f, o.MaxInputBytes)
		})
	if err != nil {
		return nil, true, err
	}
	decodeTime := o.Now().Sub(start)
	res, err := encodeFrame(fr, hdr.width, hdr.height, hdr.orientation, &o)
	fr.release()
	if err != nil {
		return nil, true, err
	}
	res.DecodeTime = decodeTime
	return res, true, nil
}

// EncodeReader encodes a JPEG, PNG or YUV4MPEG2 (raw camera frame) input,
// reading at most Options.MaxInputBytes. A JPEG's EXIF orientation is
// applied before everything else in the file (EXIF, ICC, XMP, comments) is
// dropped. JPEGs are decoded already scaled in the DCT domain, so a large
// photo costs little more than its entropy decoding.
func EncodeReader(r io.Reader, opts *Options) (*Result, error) {
	o := opts.withDefaults()
	data, err := readBounded(r, o.MaxInputBytes)
	if err != nil {
		return nil, err
	}
	start := o.Now()
	var (
		f           *frame
		srcW, srcH  int
		orientation = 1
	)
	switch {
	case bytes.HasPrefix(data, []byte{0xFF, 0xD8, 0xFF}):
		f, srcW, srcH, orientation, err = decodeJPEGInput(data, &o)
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		f, err = decodePNG(data, &o)
	case bytes.HasPrefix(data, []byte(y4mMagic)):
		f, err = parseY4M(data, o.MaxInputPixels)
	default:
		return nil, ErrUnsupportedInput
	}
	if err != nil {
		return nil, err
	}
	if srcW == 0 {
		srcW, srcH = f.w, f.h
	}
	decodeTime := o.Now().Sub(start)
	res, err := encodeFrame(f, srcW, srcH, orientation, &o)
	f.release()
	if err != nil {
		return nil, err
	}
	res.DecodeTime = decodeTime
	return res, nil
}

func readBounded(r io.Reader, limit int64) ([]byte, error) {
	// Size the buffer once when the length is known: growing by doubling
	// would briefly hold twice a large photo.
	if st, ok := r.(interface{ Stat() (os.FileInfo, error) }); ok {
		if fi, err := st.Stat(); err == nil && fi.Mode().IsRegular() {
			if fi.Size() > limit {
				return nil, fmt.Errorf("%w: %d bytes, limit %d", ErrInputTooLarge, fi.Size(), limit)
			}
			buf := make([]byte, fi.Size())
			if _, err := io.ReadFull(r, buf); err != nil {
				return nil, fmt.Errorf("jpeg: reading input: %w", err)
			}
			return buf, nil
		}
	}
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("jpeg: reading input: %w", err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrInputTooLarge, limit)
	}
	return data, nil
}

// decodeJPEGInput returns the picture scaled by the DCT factor k/8 that
// leaves it just above the target size, plus its full stored size.
func decodeJPEGInput(data []byte, o *Options) (*frame, int, int, int, error) {
	hdr, err := scanJPEG(data)
	if err != nil {
		return nil, 0, 0, 0, err
	}
	f, err := decodeJPEGWith(hdr, o, func(d decodeOpts) (*frame, decodeInfo, error) { return decodeTurbo(data, d) },
		func() ([]byte, error) { return data, nil })
	if err != nil {
		return nil, 0, 0, 0, err
	}
	return f, hdr.width, hdr.height, hdr.orientation, nil
}

// decodeJPEGWith decodes through decode (libjpeg, from memory or a file);
// full returns the whole file for the standard-library fallback.
func decodeJPEGWith(hdr jpegHeader, o *Options, decode func(decodeOpts) (*frame, decodeInfo, error), full func() ([]byte, error)) (*frame, error) {
	if hdr.width*hdr.height > o.MaxInputPixels {
		return nil, fmt.Errorf("%w: %dx%d pixels", ErrInputTooLarge, hdr.width, hdr.height)
	}
	dw, dh := hdr.width, hdr.height
	if transposes(hdr.orientation) {
		dw, dh = dh, dw
	}
	tw, th := fitSize(dw, dh, o.MaxSide)
	if transposes(hdr.orientation) {
		tw, th = th, tw
	}
	k := dctScale(hdr.width, hdr.height, tw, th)
	f, _, err := decode(decodeOpts{k: k, maxErr: progressiveMaxErr, maxScans: maxScans, maxPixels: o.MaxInputPixels})
	if errors.Is(err, errUnsupportedColor) {
		// Adobe RGB/CMYK/YCCK JPEGs are rare in photos; the standard
		// decoder handles them at full size (bounded by MaxInputPixels).
		data, rerr := full()
		if rerr != nil {
			return nil, rerr
		}
		img, derr := stdjpeg.Decode(bytes.NewReader(data))
		if derr != nil {
			return nil, fmt.Errorf("%w: %v", ErrBadInput, derr)
		}
		f, err = fromImage(img), nil
	}
	if err != nil {
		return nil, err
	}
	f.out = s422
	if hdr.chromaHalfV {
		f.out = s420
	}
	return f, nil
}

// dctScale picks the smallest k in {1, 2, 4, 8} whose k/8 decode still
// covers the target size with dctMargin to spare; Lanczos does the rest.
// The other eighths that libjpeg offers cost up to 2.5 dB (bench/photo.sh):
// truncating the 8-point DCT to 3, 5, 6 or 7 points aliases visibly.
func dctScale(w, h, tw, th int) int {
	for k := 1; k < 8; k *= 2 {
		if float64((w*k+7)/8) >= dctMargin*float64(tw) && float64((h*k+7)/8) >= dctMargin*float64(th) {
			return k
		}
	}
	return 8
}

// dctMargin: a DCT-scaled decode is a soft low-pass (a 4-point inverse DCT
// of the lowest coefficients), so the Lanczos step after it needs room to
// restore the detail. A 2,560 px photo decoded at half scale (1,280 px, 1.25x
// the target) and resampled to 1,024 px scored 54.8 dB luma PSNR and SSIM
// 0.9978 against ImageMagick's resampling of the full decode, before any
// encoding; decoded whole, 60.5 dB and 0.9993, as libvips does for it: the
// encoded LadyBird lost on SSIM and YellowFlower on butteraugli to libvips
// until then, for ~10 ms more decoding. At 1.38x (5,640 px at a quarter)
// the scaled decode still scored above both anchors.
const dctMargin = 1.3

func decodePNG(data []byte, o *Options) (*frame, error) {
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadInput, err)
	}
	if cfg.Width*cfg.Height > o.MaxInputPixels {
		return nil, fmt.Errorf("%w: %dx%d pixels", ErrInputTooLarge, cfg.Width, cfg.Height)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadInput, err)
	}
	if img.Bounds().Empty() {
		return nil, fmt.Errorf("%w: empty image", ErrBadInput)
	}
	return fromImage(img), nil
}
