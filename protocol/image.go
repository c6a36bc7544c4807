package protocol

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"image/jpeg"
)

// VerifyImage applies the receiver rules for an image (spec "Security,
// photos, and exact object lookup") in an order chosen so that each check
// costs no more than the one before it passed:
//
//  1. mediaType image/jpeg and strict base64 (image.base64); the encoded
//     length is bounded before decoding (image.size);
//  2. decoded size ≤ 61,440 bytes (image.size);
//  3. byteCount and sha256 against the decoded bytes (image.integrity);
//  4. a header-only scan to the frame header (image.jpeg when there is none);
//     its dimensions must equal the declared ones and be ≤ 1,024 px
//     (image.dimensions) — a tiny file that claims 60000×60000 costs nothing;
//  5. only then a full decode, bounded by steps 2 and 4 (image.jpeg).
//
// The first failing rule wins: later rules are meaningless on data that
// failed an earlier one. Errors never quote the image.
func VerifyImage(img *Image) error {
	_, err := verifyImage(img, true)
	return err
}

// DecodeImageData returns the verified JPEG bytes of img (all of VerifyImage's
// rules applied), for a receiver that uses them.
func DecodeImageData(img *Image) ([]byte, error) {
	return verifyImage(img, true)
}

func verifyImage(img *Image, fullDecode bool) ([]byte, error) {
	if img == nil {
		return nil, newError(CodeObservationSchema, "image is missing")
	}
	if img.MediaType != MediaTypeJPEG {
		return nil, newError(CodeImageJPEG, "mediaType must be %s", MediaTypeJPEG)
	}
	if len(img.DataBase64) > base64.StdEncoding.EncodedLen(MaxImageBytes) {
		return nil, newError(CodeImageSize, "encoded image is %d characters, more than %d bytes can need",
			len(img.DataBase64), base64.StdEncoding.EncodedLen(MaxImageBytes))
	}
	data, err := decodeStrictBase64(img.DataBase64)
	if err != nil {
		return nil, err
	}
	if len(data) > MaxImageBytes {
		return nil, newError(CodeImageSize, "image is %d bytes; the limit is %d", len(data), MaxImageBytes)
	}
	if img.ByteCount != len(data) {
		return nil, newError(CodeImageIntegrity, "byteCount %d does not match the %d decoded bytes", img.ByteCount, len(data))
	}
	sum := sha256.Sum256(data)
	if img.SHA256 != hex.EncodeToString(sum[:]) {
		return nil, newError(CodeImageIntegrity, "sha256 does not match the decoded bytes")
	}
	w, h, err := JPEGDimensions(data)
	if err != nil {
		return nil, err
	}
	if w > MaxImagePixels || h > MaxImagePixels {
		return nil, newError(CodeImageDimensions, "frame header says %d×%d px; the limit is %d on either side", w, h, MaxImagePixels)
	}
	if w != img.PixelWidth || h != img.PixelHeight {
		return nil, newError(CodeImageDimensions, "frame header says %d×%d px but %d×%d was declared", w, h, img.PixelWidth, img.PixelHeight)
	}
	if fullDecode {
		m, err := jpeg.Decode(bytes.NewReader(data))
		if err != nil {
			return nil, newError(CodeImageJPEG, "JPEG does not decode")
		}
		if b := m.Bounds(); b.Dx() != w || b.Dy() != h {
			return nil, newError(CodeImageDimensions, "decoded image is %d×%d px, not the %d×%d of its frame header", b.Dx(), b.Dy(), w, h)
		}
	}
	return data, nil
}

// base64Alphabet marks the 64 symbols of the standard alphabet: a table,
// because the chain of range tests was ~1% of `acbridge photo`'s CPU time
// on an 80 KB image (bench/photo.sh).
var base64Alphabet = func() (t [256]bool) {
	for _, c := range "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/" {
		t[c] = true
	}
	return t
}()

// decodeStrictBase64 accepts only the standard alphabet with canonical
// padding. encoding/base64 silently skips \r and \n even in Strict mode, so
// the alphabet is checked first.
func decodeStrictBase64(s string) ([]byte, error) {
	if s == "" || len(s)%4 != 0 {
		return nil, newError(CodeImageBase64, "dataBase64 is not padded standard base64")
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !base64Alphabet[c] && (c != '=' || i < len(s)-2) {
			return nil, newError(CodeImageBase64, "dataBase64 has a character outside the standard base64 alphabet at offset %d", i)
		}
	}
	data, err := base64.StdEncoding.Strict().DecodeString(s)
	if err != nil {
		return nil, newError(CodeImageBase64, "dataBase64 is not strict standard base64")
	}
	return data, nil
}

// JPEGDimensions walks the marker segments of a JPEG up to its first frame
// header (SOF0–SOF15 but DHT, JPG and DAC) and returns the frame's width and
// height without decoding anything. It reads at most len(data) bytes and
// never allocates in proportion to the claimed size. Hand-written: the
// standard library's DecodeConfig also parses tables and has no notion of
// our error codes.
func JPEGDimensions(data []byte) (width, height int, err error) {
	if len(data) < 4 || data[0] != 0xFF || data[1] != 0xD8 {
		return 0, 0, newError(CodeImageJPEG, "not a JPEG: no start-of-image marker")
	}
	i := 2
	for {
		// Markers may be preceded by any number of 0xFF fill bytes.
		if i >= len(data) || data[i] != 0xFF {
			return 0, 0, newError(CodeImageJPEG, "not a JPEG: no marker at offset %d", i)
		}
		for i < len(data) && data[i] == 0xFF {
			i++
		}
		if i >= len(data) {
			return 0, 0, newError(CodeImageJPEG, "not a JPEG: truncated before the frame header")
		}
		m := data[i]
		i++
		switch {
		case m == 0xD8 || m == 0x01 || (m >= 0xD0 && m <= 0xD7):
			continue // standalone markers
		case m == 0xD9 || m == 0xDA:
			return 0, 0, newError(CodeImageJPEG, "not a JPEG: no frame header before the image data")
		}
		if i+2 > len(data) {
			return 0, 0, newError(CodeImageJPEG, "not a JPEG: truncated segment")
		}
		n := int(data[i])<<8 | int(data[i+1])
		if n < 2 || i+n > len(data) {
			return 0, 0, newError(CodeImageJPEG, "not a JPEG: segment length out of range")
		}
		if m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC {
			// SOFn: length(2) precision(1) height(2) width(2) components(1)
			if n < 8 {
				return 0, 0, newError(CodeImageJPEG, "not a JPEG: short frame header")
			}
			height = int(data[i+3])<<8 | int(data[i+4])
			width = int(data[i+5])<<8 | int(data[i+6])
			if width == 0 || height == 0 {
				return 0, 0, newError(CodeImageDimensions, "frame header declares a zero dimension")
			}
			return width, height, nil
		}
		i += n
	}
}

// VerifyImageHeaders applies VerifyImage's rules 1–4 and returns the
// decoded bytes, leaving rule 5 (the full decode) to a caller with a
// faster decoder of its own (the photo tool checks its output with
// libjpeg-turbo). A receiver calls VerifyImage.
func VerifyImageHeaders(img *Image) ([]byte, error) {
	return verifyImage(img, false)
}
