package protocol

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"image"
	"image/color"
	"image/jpeg"
	"os"
	"testing"
)

// makeJPEG encodes a real w×h gradient JPEG.
func makeJPEG(t testing.TB, w, h int) []byte {
	t.Helper()
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			m.Set(x, y, color.RGBA{uint8(x), uint8(y), uint8(x + y), 255})
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, m, &jpeg.Options{Quality: 80}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// imageOf describes data truthfully.
func imageOf(data []byte, w, h int) *Image {
	sum := sha256.Sum256(data)
	return &Image{MediaType: MediaTypeJPEG, DataBase64: base64.StdEncoding.EncodeToString(data),
		ByteCount: len(data), SHA256: hex.EncodeToString(sum[:]), PixelWidth: w, PixelHeight: h}
}

type fixtureFile struct {
	Cards []struct {
		Name  string          `json:"name"`
		Card  json.RawMessage `json:"card"`
		Valid bool            `json:"valid"`
	} `json:"cards"`
	Observations []struct {
		Name        string          `json:"name"`
		Observation json.RawMessage `json:"observation"`
	} `json:"observations"`
	Walkthrough []struct {
		Direction string          `json:"direction"`
		Message   json.RawMessage `json:"message"`
	} `json:"walkthrough"`
}

// fixtures loads the project's copy of the public fixtures.
func fixtures(t testing.TB) *fixtureFile {
	t.Helper()
	b, err := os.ReadFile("../conformance/fixtures/physical-conformance.json")
	if err != nil {
		t.Fatal(err)
	}
	var f fixtureFile
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return &f
}

// publicCard returns the fixture card named name as a generic map to edit.
func publicCard(t testing.TB, name string) map[string]any {
	t.Helper()
	for _, c := range fixtures(t).Cards {
		if c.Name == name {
			var m map[string]any
			if err := json.Unmarshal(c.Card, &m); err != nil {
				t.Fatal(err)
			}
			return m
		}
	}
	t.Fatalf("no fixture card %q", name)
	return nil
}

// ext returns the first extension's map of a card map.
func ext(card map[string]any) map[string]any {
	return card["capabilities"].(map[string]any)["extensions"].([]any)[0].(map[string]any)
}

func params(card map[string]any) map[string]any { return ext(card)["params"].(map[string]any) }

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	codes := Codes(err)
	for _, c := range codes {
		if c == code {
			return
		}
	}
	t.Errorf("want code %s, got %v (%v)", code, codes, err)
}
