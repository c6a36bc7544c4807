package vmtest

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"os"
	"strings"
	"testing"
	"time"
)

// mjpegCamera is v4l2loopback's node (video_nr in the guest's init): a
// camera only while guestd feeds it (exclusive_caps), in MJPEG, the one
// compressed format a kernel device of the guest delivers.
const mjpegCamera = "/dev/video9"

// The fed frame: a 640x480 picture, left half one colour and right half
// another, so that a photo that went through the MJPEG decode shows both
// where they were.
var (
	mjpegLeft  = color.RGBA{R: 200, G: 40, B: 40, A: 255}
	mjpegRight = color.RGBA{R: 40, G: 70, B: 210, A: 255}
)

const mjpegWidth, mjpegHeight = 640, 480

// jpegCanary is in the fed frame's comment and Exif segments; neither may
// survive into the photo or show in the guest's output.
const jpegCanary = "acbridge-vm-jpeg-canary-5e1f"

// mjpegFrame is the JPEG guestd feeds: image/jpeg's encoding of the two
// halves, with an APP1 Exif segment and a COM segment (both holding
// jpegCanary) after the SOI, as a camera or an editor would add.
func mjpegFrame(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, mjpegWidth, mjpegHeight))
	for y := range mjpegHeight {
		for x := range mjpegWidth {
			c := mjpegLeft
			if x >= mjpegWidth/2 {
				c = mjpegRight
			}
			img.SetRGBA(x, y, c)
		}
	}
	var enc bytes.Buffer
	if err := jpeg.Encode(&enc, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	segment := func(marker byte, body string) []byte {
		n := len(body) + 2
		return append([]byte{0xFF, marker, byte(n >> 8), byte(n)}, body...)
	}
	b := enc.Bytes()
	out := append([]byte{}, b[:2]...)
	out = append(out, segment(0xE1, "Exif\x00\x00MM\x00\x2a\x00\x00\x00\x08"+jpegCanary)...)
	out = append(out, segment(0xFE, jpegCanary)...)
	return append(out, b[2:]...)
}

// mjpegBrokenEvery is how often guestd's feed breaks a frame (cuts it after
// half and ends it): every third, which the capture must skip; the
// mjpeg-truncated fault breaks every frame.
func mjpegBrokenEvery() string {
	if os.Getenv("ACBRIDGE_VM_FAULT") == "mjpeg-truncated" {
		return "1"
	}
	return "3"
}

// mjpegDaemonConfig is lineConfig's daemon (PHOTO only, on the header)
// with the button on its real line, daemonConfig's debounce for press's
// bounce, and the fed loopback camera.
var mjpegDaemonConfig = strings.NewReplacer(
	"line = 99", fmt.Sprintf("line = %d\ndebounce = \"800ms\"", linePhoto),
	"line99-keystore", "mjpeg-keystore",
	`device = "/dev/video0"`, `device = "`+mjpegCamera+`"`).Replace(lineConfig)

// testPhotoMJPEG: guestd feeds mjpegFrame to the v4l2loopback node, every
// third frame broken; `acbridge devices` lists it as a camera and
// `acbridge photo` from it is a bounded JPEG, of the fed frame's size,
// without its metadata, whose two halves have the fed colours; then a
// daemon's PHOTO press sends a photo from it to the agent.
func (r *rig) testPhotoMJPEG(t *testing.T) {
	frame := mjpegFrame(t)
	if _, err := r.vm.RunInput(t.Context(), 20*time.Second, base64.StdEncoding.EncodeToString(frame), "sh", "-c", "base64 -d > /tmp/feed.jpg"); err != nil {
		t.Fatal(err)
	}
	r.sh(t, 10*time.Second, "rm -f /tmp/feed.log; (guestd mjpeg-feed "+mjpegCamera+" /tmp/feed.jpg "+mjpegBrokenEvery()+" > /tmp/feed.log 2>&1 & echo $! > /tmp/feed.pid) >/dev/null 2>&1")
	t.Cleanup(func() {
		// t.Context is over by the time cleanups run. The killed feed
		// stays a zombie (PID 1, guestd, reaps only its own children):
		// wait for that state, not for the process to go.
		r.vm.Run(context.Background(), 10*time.Second, "sh", "-c",
			`p=$(cat /tmp/feed.pid); kill $p; while s=$(cut -d' ' -f3 /proc/$p/stat 2>/dev/null) && [ "$s" != Z ]; do usleep 50000; done`)
	})
	r.waitFile(t, "/tmp/feed.log", "feeding "+mjpegCamera, 1, 30*time.Second)

	// Unfed, the node is listed too, but as an output that does not
	// capture (exclusive_caps): the feed makes it a camera.
	var cam map[string]any
	for _, d := range r.devices(t)["cameras"].Devices {
		if d["name"] == mjpegCamera {
			cam = d
		}
	}
	if cam == nil || cam["capture"] != true {
		t.Errorf("devices lists the fed v4l2loopback node %s as %v, want a camera that captures", mjpegCamera, cam)
	}

	img, report := r.photo(t, mjpegCamera)
	if report["sourceWidth"] != float64(mjpegWidth) || report["sourceHeight"] != float64(mjpegHeight) {
		t.Errorf("photo's source is %vx%v, want the fed %dx%d", report["sourceWidth"], report["sourceHeight"], mjpegWidth, mjpegHeight)
	}
	if bytes.Contains(img, []byte(jpegCanary)) {
		t.Error("the photo carries the fed frame's comment or Exif")
	}
	out, err := r.vm.Run(t.Context(), 20*time.Second, "sh", "-c", "cat /tmp/feed.log; dmesg")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.Stdout, jpegCanary) {
		t.Error("the guest's log or dmesg shows the fed frame's metadata")
	}
	pic, err := jpeg.Decode(bytes.NewReader(img))
	if err != nil {
		t.Fatal(err)
	}
	// Away from the seam, where the chroma subsampling blends the halves.
	w, h := pic.Bounds().Dx(), pic.Bounds().Dy()
	left := meanColour(pic, image.Rect(w/16, h/8, w*7/16, h*7/8))
	right := meanColour(pic, image.Rect(w*9/16, h/8, w*15/16, h*7/8))
	for _, c := range []struct {
		name      string
		got, want color.RGBA
	}{{"left", left, mjpegLeft}, {"right", right, mjpegRight}} {
		if !near(int(c.got.R), int(c.want.R)) || !near(int(c.got.G), int(c.want.G)) || !near(int(c.got.B), int(c.want.B)) {
			t.Errorf("photo's %s half has mean colour %v, want the fed %v ±12", c.name, c.got, c.want)
		}
	}
	t.Run("press", r.mjpegPress)
}

// meanColour is the mean 8-bit RGB of img over rect.
func meanColour(img image.Image, rect image.Rectangle) color.RGBA {
	var sr, sg, sb, n uint64
	for y := rect.Min.Y; y < rect.Max.Y; y++ {
		for x := rect.Min.X; x < rect.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			sr, sg, sb, n = sr+uint64(r>>8), sg+uint64(g>>8), sb+uint64(b>>8), n+1
		}
	}
	if n == 0 {
		return color.RGBA{}
	}
	return color.RGBA{R: uint8(sr / n), G: uint8(sg / n), B: uint8(sb / n), A: 255}
}

// mjpegPress: `acbridge run` with mjpegDaemonConfig; one bouncy PHOTO
// press sends one photo from the fed camera, which the agent receives, and
// neither the daemon nor the agent logs the fed frame's metadata. The
// daemon has ended (its GPIO line free again) when it returns.
func (r *rig) mjpegPress(t *testing.T) {
	if _, err := r.vm.RunInput(t.Context(), 10*time.Second, mjpegDaemonConfig, "sh", "-c", "cat > /tmp/mjpeg.toml"); err != nil {
		t.Fatal(err)
	}
	r.startDaemon(t, "mjpeg-run", "--config /tmp/mjpeg.toml")
	r.waitFile(t, "/tmp/mjpeg-run.out", "you can use: photo]", 1, 60*time.Second)
	r.press(t, linePhoto)
	r.waitFile(t, "/tmp/mjpeg-run.out", "[photo sent]", 1, 60*time.Second)
	r.waitFile(t, "/tmp/mjpeg-run.out", "agent: Received the photo; nothing stored.", 1, 30*time.Second)
	logs := r.run(t, 5*time.Second, "sh", "-c", "cat /tmp/mjpeg-run.out /tmp/mjpeg-run.err").Stdout
	if n := strings.Count(logs, "[photo sent]"); n != 1 {
		t.Errorf("one PHOTO press sent %d photos", n)
	}
	if strings.Contains(logs, jpegCanary) || strings.Contains(r.agent.log.String(), jpegCanary) {
		t.Error("the daemon's output or the agent's log shows the fed frame's metadata")
	}
}
