package jpeg

import (
	"bytes"
	"image"
	stdjpeg "image/jpeg"
	"testing"

	"golang.org/x/image/draw"
)

// Speed and memory targets live in bench/photo.sh; these benchmarks keep
// the measurements behind the package's choices repeatable:
//
//	go test -run XXX -bench . -benchmem ./jpeg/

var sinkResult *Result

// A 1080p camera frame (4:2:0, as V4L2 delivers it) to a photo.
func BenchmarkEncodeCameraFrame(b *testing.B) {
	m := subsample(photo(1920, 1080, 3, 40), image.YCbCrSubsampleRatio420)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := Encode(m, nil)
		if err != nil {
			b.Fatal(err)
		}
		sinkResult = r
	}
}

// A 12 MP progressive file: scaled decode with the compact store.
func BenchmarkEncodeProgressive12MP(b *testing.B) {
	data := progressiveJPEG(b, photo(4056, 3040, 3, 41), s420)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := EncodeReader(bytes.NewReader(data), nil)
		if err != nil {
			b.Fatal(err)
		}
		sinkResult = r
	}
}

// The same 12 MP photo through the standard library only: image/jpeg
// decode (full size: no DCT scaling), x/image/draw Catmull-Rom, and a
// binary search over image/jpeg's integer quality (no optimized Huffman
// tables). This is the alternative the cgo path was measured against.
func BenchmarkStdlibPipeline12MP(b *testing.B) {
	data := stdJPEG(b, photo(4056, 3040, 3, 41), 92)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		src, err := stdjpeg.Decode(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		dst := image.NewRGBA(image.Rect(0, 0, 1024, 768))
		draw.CatmullRom.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Src, nil)
		lo, hi := 1, 100
		for lo < hi {
			q := (lo + hi + 1) / 2
			var buf bytes.Buffer
			if err := stdjpeg.Encode(&buf, dst, &stdjpeg.Options{Quality: q}); err != nil {
				b.Fatal(err)
			}
			if buf.Len() <= 61440 {
				lo = q
			} else {
				hi = q - 1
			}
		}
	}
}

// The same 12 MP baseline file through this package, for comparison.
func BenchmarkEncodeBaseline12MP(b *testing.B) {
	data := stdJPEG(b, photo(4056, 3040, 3, 41), 92)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := EncodeReader(bytes.NewReader(data), nil)
		if err != nil {
			b.Fatal(err)
		}
		sinkResult = r
	}
}

// Lanczos-3 on planes (C inner loops) against x/image/draw's Catmull-Rom
// on RGBA, 1920x1080 4:2:0 to 1024x576.
func BenchmarkResizePlanes(b *testing.B) {
	f := fromImage(subsample(photo(1920, 1080, 3, 42), image.YCbCrSubsampleRatio420))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		resample(f, 1024, 576, 1, s420)
	}
}

func BenchmarkResizeXImageDraw(b *testing.B) {
	src := subsample(photo(1920, 1080, 3, 42), image.YCbCrSubsampleRatio420)
	dst := image.NewRGBA(image.Rect(0, 0, 1024, 576))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		draw.CatmullRom.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Src, nil)
	}
}
