package audio_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentcall/acbridge/audio"
)

func wavBytes(t testing.TB, pcm []int16) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "x.wav")
	w, err := audio.CreateWAV(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(pcm); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestWAVRoundTrip(t *testing.T) {
	pcm := []int16{0, 1, -1, 32767, -32768, 1234}
	b := wavBytes(t, pcm)
	if len(b) != 44+12 || string(b[0:4]) != "RIFF" || binary.LittleEndian.Uint32(b[4:]) != 36+12 || binary.LittleEndian.Uint32(b[40:]) != 12 {
		t.Fatalf("header % x", b[:44])
	}
	w, err := audio.ParseWAV(b)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(w.Samples, pcm) {
		t.Fatalf("samples %v", w.Samples)
	}
}

func TestWAVRejects(t *testing.T) {
	good := wavBytes(t, make([]int16, 100))
	mut := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	le := binary.LittleEndian
	cases := map[string][]byte{
		"empty":     {},
		"not riff":  mut(func(b []byte) []byte { copy(b, "RIFX"); return b }),
		"truncated": good[:len(good)-2],
		"unfinished header (writer not closed)": mut(func(b []byte) []byte {
			le.PutUint32(b[4:], 0)
			le.PutUint32(b[40:], 0)
			return b
		}),
		"data overruns": mut(func(b []byte) []byte { le.PutUint32(b[40:], 1000); return b }),
		"float format":  mut(func(b []byte) []byte { le.PutUint16(b[20:], 3); return b }),
		"8-bit":         mut(func(b []byte) []byte { le.PutUint16(b[34:], 8); return b }),
		"bad align":     mut(func(b []byte) []byte { le.PutUint16(b[32:], 4); return b }),
		"no channels":   mut(func(b []byte) []byte { le.PutUint16(b[22:], 0); return b }),
		"odd data":      mut(func(b []byte) []byte { le.PutUint32(b[40:], 199); return b }),
		"no data chunk": mut(func(b []byte) []byte { copy(b[36:], "junk"); return b }),
	}
	for name, b := range cases {
		if _, err := audio.ParseWAV(b); !errors.Is(err, audio.ErrBadWAV) {
			t.Errorf("%s: %v, want ErrBadWAV", name, err)
		}
	}
	if _, err := audio.ReadWAV(bytes.NewReader(good), int64(len(good)-1)); !errors.Is(err, audio.ErrBadWAV) {
		t.Errorf("over the limit: %v", err)
	}
}

// Chunks the writer does not make (LIST, odd-sized ones with padding) are
// skipped.
func TestWAVSkipsOtherChunks(t *testing.T) {
	good := wavBytes(t, []int16{7, 8, 9})
	var b bytes.Buffer
	b.Write(good[:36])
	b.WriteString("LIST")
	binary.Write(&b, binary.LittleEndian, uint32(3))
	b.Write([]byte{1, 2, 3, 0}) // odd size plus pad byte
	b.Write(good[36:])
	out := b.Bytes()
	binary.LittleEndian.PutUint32(out[4:], uint32(len(out)-8))
	w, err := audio.ParseWAV(out)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(w.Samples, []int16{7, 8, 9}) {
		t.Fatalf("samples %v", w.Samples)
	}
}

type seekBuf struct {
	b   []byte
	off int64
}

func (s *seekBuf) Write(p []byte) (int, error) {
	if need := int(s.off) + len(p); need > len(s.b) {
		s.b = append(s.b, make([]byte, need-len(s.b))...)
	}
	copy(s.b[s.off:], p)
	s.off += int64(len(p))
	return len(p), nil
}

func (s *seekBuf) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
		s.off = off
	case io.SeekEnd:
		s.off = int64(len(s.b)) + off
	}
	return s.off, nil
}

func TestWAVWriterStereo(t *testing.T) {
	var sb seekBuf
	w, err := audio.NewWAVWriter(&sb, 16000, 2)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]int16{1, 2, 3, 4})
	w.Write([]int16{5, 6})
	w.Close()
	got, err := audio.ParseWAV(sb.b)
	if err != nil {
		t.Fatal(err)
	}
	if got.SampleRate != 16000 || got.Channels != 2 || len(got.Samples) != 6 || got.Duration() != 187500 {
		t.Fatalf("%+v, %v", got, got.Duration())
	}
	if _, err := audio.NewWAVWriter(&sb, 0, 1); !errors.Is(err, audio.ErrBadConfig) {
		t.Fatalf("0 Hz: %v", err)
	}
}

func FuzzParseWAV(f *testing.F) {
	f.Add(wavBytes(f, []int16{1, 2, 3}))
	f.Add([]byte("RIFF\x04\x00\x00\x00WAVE"))
	f.Fuzz(func(t *testing.T, b []byte) {
		w, err := audio.ParseWAV(b)
		if err != nil {
			if !errors.Is(err, audio.ErrBadWAV) {
				t.Fatalf("error without ErrBadWAV: %v", err)
			}
			return
		}
		if len(w.Samples)*2 > len(b) || w.Channels < 1 {
			t.Fatalf("parsed %d samples, %d channels from %d bytes", len(w.Samples), w.Channels, len(b))
		}
	})
}
