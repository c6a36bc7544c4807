package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/jpeg"

	"github.com/agentcall/acbridge/station"
)

func writePNG(t *testing.T, path string, w, h int) {
	t.Helper()
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			m.Set(x, y, color.NRGBA{uint8(x), uint8(y), uint8(x ^ y), 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestPhotoInputJSON(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.png"), filepath.Join(dir, "out.jpg")
	writePNG(t, in, 1500, 900)
	code, stdout, stderr := run(t, "photo", "--input", in, "-o", out, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep station.PhotoReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if rep.ByteCount != len(data) || rep.PixelWidth != 1024 || rep.PixelHeight != 614 || rep.SourceWidth != 1500 ||
		rep.Quality < 1 || rep.Encodes < 1 || rep.EncodeMs <= 0 || rep.MediaType != "image/jpeg" {
		t.Errorf("report %+v for %d bytes", rep, len(data))
	}
	img, err := jpeg.Describe(data)
	if err != nil || img.SHA256 != rep.SHA256 {
		t.Fatalf("file and report disagree: %v", err)
	}
	if err := jpeg.Verify(&img); err != nil {
		t.Fatal(err)
	}
	if err := jpeg.CheckMetadataFree(data); err != nil {
		t.Fatal(err)
	}
	// The report never carries the picture.
	b64 := base64.StdEncoding.EncodeToString(data)
	if strings.Contains(stdout, "dataBase64") || strings.Contains(stdout+stderr, b64[100:140]) {
		t.Error("--json printed image bytes")
	}
	if fi, _ := os.Stat(out); fi.Mode().Perm() != 0o600 {
		t.Errorf("output mode %v", fi.Mode().Perm())
	}
}

func TestPhotoCamera(t *testing.T) {
	out := filepath.Join(t.TempDir(), "cam.jpg")
	code, stdout, stderr := run(t, "photo", "--camera", "VideoTest", "--rotate", "90", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "480x640 px") {
		t.Errorf("output %q", stdout)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := jpeg.CheckMetadataFree(data); err != nil {
		t.Fatal(err)
	}
}

func TestPhotoErrors(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.png")
	writePNG(t, in, 10, 10)
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"photo", "--input", in}, 2, "-o OUT.jpg is required"},
		{[]string{"photo", "--input", in, "--camera", "x", "-o", filepath.Join(dir, "o.jpg")}, 2, "exclude each other"},
		{[]string{"photo", "--input", filepath.Join(dir, "missing.png"), "-o", filepath.Join(dir, "o.jpg")}, 1, "no such file"},
		{[]string{"photo", "--camera", "no-such-camera", "-o", filepath.Join(dir, "o.jpg")}, 1, "no matching camera"},
		{[]string{"photo", "--input", in, "-o", filepath.Join(dir, "missing-dir", "o.jpg")}, 1, "no such file"},
	}
	for _, c := range cases {
		code, _, stderr := run(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.msg) {
			t.Errorf("%v: exit %d, stderr %q", c.args, code, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "o.jpg")); err == nil {
		t.Error("a failed run wrote a file")
	}
}
