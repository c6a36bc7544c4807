package audio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sync"
	"time"
)

// The RIFF/WAVE PCM format is 44 bytes of header and little-endian
// samples; it is written and read here by hand because the Go libraries
// for it are larger than the code they would replace and none is part of
// the dependency set.

const wavHeaderSize = 44

// maxWAVData keeps the RIFF size field (data + 36) within 32 bits.
const maxWAVData = math.MaxUint32 - (wavHeaderSize - 8)

// WAVWriter writes 16-bit PCM as a RIFF/WAVE file. The header's size
// fields are written as zero first and fixed up by Close, so a file whose
// writer was not closed reads back as invalid rather than as a wrong
// length.
type WAVWriter struct {
	mu       sync.Mutex
	w        io.WriteSeeker
	file     *os.File // closed by Close when the writer made it
	channels int
	data     int64
	buf      []byte
	closed   bool
}

var _ Sink = (*WAVWriter)(nil)

// CreateWAV creates (or truncates) path as a 48 kHz mono WAV sink, mode
// 0600: recordings stay private to the service user.
func CreateWAV(path string) (*WAVWriter, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("audio: create WAV: %w", err)
	}
	w, err := NewWAVWriter(f, SampleRate, Channels)
	if err != nil {
		f.Close()
		return nil, err
	}
	w.file = f
	return w, nil
}

// NewWAVWriter writes a WAV header for sampleRate and channels to ws and
// returns a Sink for interleaved 16-bit samples. Close fixes the header up
// but does not close ws.
func NewWAVWriter(ws io.WriteSeeker, sampleRate, channels int) (*WAVWriter, error) {
	if sampleRate <= 0 || sampleRate > 384000 || channels <= 0 || channels > 8 {
		return nil, fmt.Errorf("%w: WAV of %d Hz, %d channels", ErrBadConfig, sampleRate, channels)
	}
	h := make([]byte, wavHeaderSize)
	copy(h[0:], "RIFF")
	copy(h[8:], "WAVEfmt ")
	le := binary.LittleEndian
	le.PutUint32(h[16:], 16) // fmt chunk size
	le.PutUint16(h[20:], 1)  // PCM
	le.PutUint16(h[22:], uint16(channels))
	le.PutUint32(h[24:], uint32(sampleRate))
	le.PutUint32(h[28:], uint32(sampleRate*channels*2)) // byte rate
	le.PutUint16(h[32:], uint16(channels*2))            // block align
	le.PutUint16(h[34:], 16)                            // bits per sample
	copy(h[36:], "data")
	if _, err := ws.Write(h); err != nil {
		return nil, fmt.Errorf("audio: write WAV header: %w", err)
	}
	return &WAVWriter{w: ws, channels: channels}, nil
}

// Write appends samples. Over 4 GiB of data the WAV format ends, and
// Write fails without writing.
func (w *WAVWriter) Write(pcm []int16) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return ErrClosed
	}
	n := int64(len(pcm)) * 2
	if w.data+n > maxWAVData {
		return fmt.Errorf("audio: WAV data would exceed 4 GiB")
	}
	w.buf = w.buf[:0]
	for _, s := range pcm {
		w.buf = binary.LittleEndian.AppendUint16(w.buf, uint16(s))
	}
	k, err := w.w.Write(w.buf)
	w.data += int64(k)
	if err != nil {
		return fmt.Errorf("audio: write WAV: %w", err)
	}
	return nil
}

// Close writes the final sizes into the header and closes the file made
// by CreateWAV. Safe to call twice.
func (w *WAVWriter) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	err := w.fixHeader()
	if w.file != nil {
		err = errors.Join(err, w.file.Close())
	}
	if err != nil {
		return fmt.Errorf("audio: finish WAV: %w", err)
	}
	return nil
}

func (w *WAVWriter) fixHeader() error {
	var b [4]byte
	for _, f := range []struct {
		off int64
		v   int64
	}{{4, w.data + wavHeaderSize - 8}, {40, w.data}} {
		binary.LittleEndian.PutUint32(b[:], uint32(f.v))
		if _, err := w.w.Seek(f.off, io.SeekStart); err != nil {
			return err
		}
		if _, err := w.w.Write(b[:]); err != nil {
			return err
		}
	}
	_, err := w.w.Seek(0, io.SeekEnd)
	return err
}

// WAV is a parsed 16-bit PCM WAV file.
type WAV struct {
	SampleRate int
	Channels   int
	Samples    []int16 // interleaved
}

// Duration is the playing time of the samples.
func (w *WAV) Duration() time.Duration {
	if w.SampleRate <= 0 || w.Channels <= 0 {
		return 0
	}
	return time.Duration(len(w.Samples)/w.Channels) * time.Second / time.Duration(w.SampleRate)
}

// ReadWAV reads at most limit bytes from r and parses them with ParseWAV.
func ReadWAV(r io.Reader, limit int64) (*WAV, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("audio: read WAV: %w", err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%w: larger than %d bytes", ErrBadWAV, limit)
	}
	return ParseWAV(b)
}

// ParseWAV parses a RIFF/WAVE file of 16-bit PCM. It checks that the RIFF
// size matches the data (so an unfinished header is caught), that the fmt
// chunk is consistent, and skips chunks it does not need (LIST, fact).
func ParseWAV(b []byte) (*WAV, error) {
	le := binary.LittleEndian
	if len(b) < 12 || !bytes.Equal(b[0:4], []byte("RIFF")) || !bytes.Equal(b[8:12], []byte("WAVE")) {
		return nil, fmt.Errorf("%w: not a RIFF/WAVE file", ErrBadWAV)
	}
	if size := int64(le.Uint32(b[4:])) + 8; size != int64(len(b)) {
		return nil, fmt.Errorf("%w: RIFF size says %d bytes, file has %d", ErrBadWAV, size, len(b))
	}
	var out WAV
	var haveFmt, haveData bool
	for rest := b[12:]; len(rest) > 0; {
		if len(rest) < 8 {
			return nil, fmt.Errorf("%w: truncated chunk header", ErrBadWAV)
		}
		id, size := string(rest[:4]), int64(le.Uint32(rest[4:]))
		rest = rest[8:]
		if size > int64(len(rest)) {
			return nil, fmt.Errorf("%w: chunk %q of %d bytes overruns the file", ErrBadWAV, id, size)
		}
		body := rest[:size]
		rest = rest[min(size+size%2, int64(len(rest))):] // chunks are padded to even sizes
		switch id {
		case "fmt ":
			if err := parseFmt(body, &out); err != nil {
				return nil, err
			}
			haveFmt = true
		case "data":
			if !haveFmt {
				return nil, fmt.Errorf("%w: data chunk before fmt chunk", ErrBadWAV)
			}
			if size%int64(2*out.Channels) != 0 {
				return nil, fmt.Errorf("%w: data of %d bytes is not whole frames", ErrBadWAV, size)
			}
			out.Samples = make([]int16, size/2)
			for i := range out.Samples {
				out.Samples[i] = int16(le.Uint16(body[2*i:]))
			}
			haveData = true
		}
	}
	if !haveFmt || !haveData {
		return nil, fmt.Errorf("%w: missing fmt or data chunk", ErrBadWAV)
	}
	return &out, nil
}

func parseFmt(b []byte, out *WAV) error {
	le := binary.LittleEndian
	if len(b) < 16 {
		return fmt.Errorf("%w: fmt chunk of %d bytes", ErrBadWAV, len(b))
	}
	format, ch, rate := le.Uint16(b[0:]), int(le.Uint16(b[2:])), int(le.Uint32(b[4:]))
	byteRate, align, bits := int(le.Uint32(b[8:])), int(le.Uint16(b[12:])), le.Uint16(b[14:])
	switch {
	case format != 1 || bits != 16:
		return fmt.Errorf("%w: format %d with %d bits per sample, want PCM (1) with 16", ErrBadWAV, format, bits)
	case ch < 1 || ch > 8 || rate < 1 || rate > 384000:
		return fmt.Errorf("%w: %d channels at %d Hz", ErrBadWAV, ch, rate)
	case align != ch*2 || byteRate != rate*ch*2:
		return fmt.Errorf("%w: block align %d / byte rate %d inconsistent with %d channels at %d Hz", ErrBadWAV, align, byteRate, ch, rate)
	}
	out.SampleRate, out.Channels = rate, ch
	return nil
}
