package jpeg

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"math"
	"time"

	"github.com/agentcall/acbridge/protocol"
)

// Defaults for Options fields left zero.
const (
	// DefaultMinQuality is the libjpeg-equivalent quality below which
	// Encode shrinks the picture instead of quantizing harder: blocking
	// then costs more detail than the lost pixels do. Measured with
	// bench/photo.sh on Elephants_5640x3172 (the set's only photo this
	// hard): with a floor of 30 it came out 973 px wide, 0.2 dB PSNR
	// better but worse on butteraugli (4.83) than ImageMagick (4.78) and
	// libvips (4.60) at 1024 px; with 25 it stays 1024 px wide and scores
	// 4.41 there, PSNR still 0.43 dB above both.
	DefaultMinQuality = 25
	// DefaultMaxInputBytes bounds what EncodeReader reads.
	DefaultMaxInputBytes = 64 << 20
	// DefaultMaxInputPixels bounds the frame an input may declare.
	DefaultMaxInputPixels = 100_000_000

	minSide    = 64 // never shrink below this many pixels on the short side
	maxTrials  = 12 // encodes per size in the quality search
	maxShrinks = 10 // sizes tried before giving up
)

// Errors. Every error this package returns wraps one of these or a
// protocol.Error (Verify), and none quotes image bytes.
var (
	ErrBadInput         = errors.New("jpeg: input is not a decodable image")
	ErrUnsupportedInput = errors.New("jpeg: unsupported input format (want JPEG, PNG or YUV4MPEG2)")
	ErrInputTooLarge    = errors.New("jpeg: input exceeds the size limit")
	ErrTooComplex       = errors.New("jpeg: image does not fit the byte budget at any size")
)

// Options tunes Encode. The zero value (or nil) gives the protocol bounds
// and documented defaults; the bounds can only be tightened.
type Options struct {
	// MaxBytes is the byte budget; 0 or anything above
	// protocol.MaxImageBytes means protocol.MaxImageBytes.
	MaxBytes int
	// MaxSide bounds width and height; 0 or anything above
	// protocol.MaxImagePixels means protocol.MaxImagePixels.
	MaxSide int
	// MinQuality: 0 means DefaultMinQuality; -1 never shrinks.
	MinQuality int
	// MaxInputBytes bounds EncodeReader; 0 means DefaultMaxInputBytes.
	MaxInputBytes int64
	// MaxInputPixels bounds decoded inputs; 0 means DefaultMaxInputPixels.
	MaxInputPixels int
	// Now is the clock for the reported times; nil means time.Now.
	Now func() time.Time
	// Orientation turns Encode's picture as EXIF orientation 1..8 does
	// (a camera's mounting: camera.Frame.Orientation), after downscaling,
	// where it is cheap; 0 means 1, as stored. Files carry their own.
	Orientation int
}

func (o *Options) withDefaults() Options {
	var r Options
	if o != nil {
		r = *o
	}
	if r.MaxBytes <= 0 || r.MaxBytes > protocol.MaxImageBytes {
		r.MaxBytes = protocol.MaxImageBytes
	}
	if r.MaxSide <= 0 || r.MaxSide > protocol.MaxImagePixels {
		r.MaxSide = protocol.MaxImagePixels
	}
	if r.MinQuality == 0 {
		r.MinQuality = DefaultMinQuality
	}
	if r.MaxInputBytes <= 0 {
		r.MaxInputBytes = DefaultMaxInputBytes
	}
	if r.MaxInputPixels <= 0 {
		r.MaxInputPixels = DefaultMaxInputPixels
	}
	if r.Now == nil {
		r.Now = time.Now
	}
	return r
}

// Result is one encoded photo. Data and Image.DataBase64 are the only
// copies of the picture: callers send them and drop them, never log them.
type Result struct {
	Image protocol.Image // wire form; metadata derived from Data
	Data  []byte         // the JPEG bytes (the photo tool writes these)

	Width, Height             int // chosen size
	SourceWidth, SourceHeight int // input size, after orientation
	Quality                   int // libjpeg-equivalent quality of the chosen tables
	Encodes                   int // full-size trial encodes the search spent
	SampleEncodes             int // trial encodes of the estimate's sample (each a quarter of the rows)
	DecodeTime                time.Duration
	EncodeTime                time.Duration // resampling and quality search
}

// Encode turns a frame into the largest metadata-free JPEG within the
// bounds: it fits the picture into MaxSide with a Lanczos-3 filter, then
// searches the quantization scale so the file comes as close to MaxBytes
// as it can without passing it; where that needs a quality below
// MinQuality it shrinks the picture instead.
func Encode(src image.Image, opts *Options) (*Result, error) {
	if src == nil || src.Bounds().Empty() {
		return nil, fmt.Errorf("%w: empty image", ErrBadInput)
	}
	o := opts.withDefaults()
	b := src.Bounds()
	if int64(b.Dx())*int64(b.Dy()) > int64(o.MaxInputPixels) {
		return nil, fmt.Errorf("%w: %dx%d pixels", ErrInputTooLarge, b.Dx(), b.Dy())
	}
	orientation := o.Orientation
	if orientation < 1 || orientation > 8 {
		orientation = 1
	}
	return encodeFrame(fromImage(src), b.Dx(), b.Dy(), orientation, &o)
}

// encodeFrame resamples f (then applies orientation) and searches. srcW and
// srcH are the stored picture's full size, which f may be a scaled decode of.
func encodeFrame(f *frame, srcW, srcH, orientation int, o *Options) (*Result, error) {
	start := o.Now()
	if transposes(orientation) {
		srcW, srcH = srcH, srcW
	}
	w, h := fitSize(srcW, srcH, o.MaxSide)
	res := &Result{SourceWidth: srcW, SourceHeight: srcH}
	limit := float64(scaleMax)
	if o.MinQuality > 0 {
		limit = scaleOf(o.MinQuality)
	}
	guess := scaleOf(80)
	s := firstSampling(f.out)
	for round := 0; ; round++ {
		if round == maxShrinks {
			return nil, fmt.Errorf("%w: %dx%d after %d reductions", ErrTooComplex, w, h, round)
		}
		small := resample(f, w, h, orientation, s)
		alpha := 0.0
		if round == 0 {
			est, a, n, ok := estimateScale(small, o.MaxBytes, guess, limit)
			res.SampleEncodes += n
			if ok {
				guess, alpha = est, a
			}
			if ok && s != f.out && qualityOf(est) >= keepChromaQuality {
				s = f.out
				small = withChroma(f, small, orientation, s)
				guess, n = reaimScale(small, o.MaxBytes, est, a, limit)
				res.SampleEncodes += n
			}
		}
		sr, err := searchScale(o.MaxBytes, guess, limit, alpha, maxTrials, func(s float64) ([]byte, error) {
			return encodeTurbo(small, tablesAt(s), false)
		})
		res.Encodes += sr.encodes
		if err != nil {
			return nil, err
		}
		if sr.fits {
			res.Data, res.Width, res.Height, res.Quality = sr.data, w, h, qualityOf(sr.scale)
			break
		}
		short := min(w, h)
		if short <= minSide && limit < scaleMax {
			limit = scaleMax // too small to shrink further: give up quality instead
			continue
		}
		if short <= minSide || sr.over == 0 {
			return nil, fmt.Errorf("%w: %dx%d", ErrTooComplex, w, h)
		}
		// Bytes grow roughly with area at a fixed quality: aim at the
		// quality limit with a small margin.
		k := min(0.95, math.Sqrt(float64(o.MaxBytes)/float64(sr.over))*0.98)
		k = max(k, float64(minSide)/float64(short))
		w, h = max(1, int(math.Round(float64(w)*k))), max(1, int(math.Round(float64(h)*k)))
		guess = limit
	}
	res.EncodeTime = o.Now().Sub(start)
	img, err := Describe(res.Data)
	if err != nil {
		return nil, fmt.Errorf("jpeg: encoder output unreadable: %w", err)
	}
	res.Image = img
	return res, nil
}

// fitSize scales w x h down (never up) to fit side x side.
func fitSize(w, h, side int) (int, int) {
	if w <= side && h <= side {
		return w, h
	}
	if w >= h {
		return side, max(1, int(math.Round(float64(h)*float64(side)/float64(w))))
	}
	return max(1, int(math.Round(float64(w)*float64(side)/float64(h)))), side
}

// resample produces the padded encoder frame of w x h (display
// orientation), chroma subsampled by s, from f (stored orientation).
func resample(f *frame, w, h, orientation int, s sampling) *frame {
	if s.hs == 0 {
		s = s420
	}
	sw, sh := w, h
	if transposes(orientation) {
		sw, sh = h, w
	}
	if orientation <= 1 {
		out := newEncodeFrame(w, h, f.n, s)
		resizeInto(&out.p[0], f.p[0])
		for c := 1; c < f.n; c++ {
			resizeChroma(&out.p[c], f.p[c], f.p[0])
		}
		out.replicateEdges()
		return out
	}
	out := newEncodeFrame(w, h, f.n, s)
	tmp := &frame{n: f.n, w: sw, h: sh}
	tmp.p[0] = resizePlane(f.p[0], sw, sh, halved{})
	for c := 1; c < f.n; c++ {
		cw, ch := out.p[c].w, out.p[c].h
		if transposes(orientation) {
			cw, ch = ch, cw
		}
		tmp.p[c] = resizePlane(f.p[c], cw, ch, halvedOf(f.p[c], f.p[0]))
	}
	for c := 0; c < f.n; c++ {
		orientInto(&out.p[c], tmp.p[c], orientation)
	}
	out.replicateEdges()
	return out
}

// Describe derives the wire form of a JPEG from its bytes: strict base64,
// byteCount, sha256, and pixelWidth/pixelHeight from its frame header.
func Describe(data []byte) (protocol.Image, error) {
	w, h, err := protocol.JPEGDimensions(data)
	if err != nil {
		return protocol.Image{}, err
	}
	sum := sha256.Sum256(data)
	return protocol.Image{
		MediaType:   protocol.MediaTypeJPEG,
		DataBase64:  base64.StdEncoding.EncodeToString(data),
		ByteCount:   len(data),
		SHA256:      hex.EncodeToString(sum[:]),
		PixelWidth:  w,
		PixelHeight: h,
	}, nil
}

// ErrMetadata reports an APPn or COM segment in a JPEG that must be
// metadata-free.
var ErrMetadata = errors.New("jpeg: metadata segment present")

// CheckMetadataFree walks every marker of a JPEG, entropy-coded data
// included, and fails on the first APPn (EXIF, JFIF, ICC, XMP...) or COM
// segment. Encoder outputs never have one.
func CheckMetadataFree(data []byte) error {
	if len(data) < 4 || data[0] != 0xFF || data[1] != 0xD8 {
		return fmt.Errorf("%w: not a JPEG", ErrBadInput)
	}
	for i := 2; i+1 < len(data); {
		if data[i] != 0xFF {
			i++ // entropy-coded data
			continue
		}
		m := data[i+1]
		switch {
		case m == 0xFF: // fill byte
			i++
			continue
		case m == 0x00 || m == 0x01 || (m >= 0xD0 && m <= 0xD7): // stuffing, TEM, RSTn: no length
			i += 2
			continue
		case m == 0xD9:
			return nil
		case (m >= 0xE0 && m <= 0xEF) || m == 0xFE:
			return fmt.Errorf("%w: marker 0x%02X at offset %d", ErrMetadata, m, i)
		}
		if i+4 > len(data) {
			break
		}
		i += 2 + (int(data[i+2])<<8 | int(data[i+3]))
	}
	return nil
}

// Verify applies the receiver rules of protocol.VerifyImage (the same code,
// so producer and receiver can never disagree): strict base64, size,
// byte count and SHA-256, frame-header dimensions before any decode, then
// a bounded full decode. Errors are *protocol.Error with a stable Code.
func Verify(img *protocol.Image) error {
	return protocol.VerifyImage(img)
}
